import { useQuery } from '@tanstack/react-query'
import { X } from 'lucide-react'
import { useState } from 'react'
import type { Collaborator } from '../../../contract/collaborators.ts'
import {
  FILTER_FIELDS,
  filterField,
  SEARCH_FIELD_ID,
  SEARCHED_FIELDS,
  type EventField,
  type FilterCondition,
  type Filters,
} from '../../../contract/filters.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { eventFieldsQuery } from '../../api/event-fields.ts'
import { projectQuery } from '../../api/projects.ts'
import { Button } from '../../components/ui/button.tsx'
import { cn } from '../../lib/cn.ts'
import { FilterCombobox } from './filter-combobox.tsx'
import { TimeRangeSelect } from './time-range-select.tsx'
import { addCondition, describeOperator, removeCondition, TIME_FIELDS, withoutFields } from './to-filter-search.ts'

/** The registry's fields in event_fields' shape: suggestions before (or without) the server's list. */
const FALLBACK_FIELDS: EventField[] = FILTER_FIELDS.map((f) => ({
  display_id: f.display_id,
  name: f.name,
  custom: false,
  scope: f.scope,
  filter_types: [...f.types],
  match: f.match,
  values: f.values ? [...f.values] : null,
  pivot: f.pivot,
}))

const ASSIGNEE_WORDS: Record<string, string> = { me: 'me', anyone: 'anyone' }

/** A condition as a chip reads: "Release stage is not staging", "Error message contains timeout", "User email is empty". */
export function describeChip(
  fieldId: string,
  condition: FilterCondition,
  fields: readonly EventField[],
  collaborators: readonly Collaborator[] | undefined,
): string {
  const field = fields.find((f) => f.display_id === fieldId) ?? filterField(fieldId)
  const name = field?.name ?? fieldId
  const operator = describeOperator(condition, field?.match)
  if (condition.type === 'empty') return `${name} ${operator}`
  let value = condition.value
  if (fieldId === 'error.assigned_to') {
    const person = collaborators?.find((c) => c.id === value)
    value = ASSIGNEE_WORDS[value] ?? (person ? person.name || person.email : value)
  }
  return `${name} ${operator} ${value}`
}

/**
 * The filter bar of a project view: one removable chip per condition, the combobox to add one,
 * and the time range. Everything it changes goes through `onChange` (into the URL).
 */
export function FilterBar({
  projectId,
  filters,
  onChange,
  offerValuesPage = false,
  className,
}: {
  projectId: string
  filters: Filters
  onChange: (next: Filters) => void
  /** "See all values of …" after a pivot field's suggestions, to the project's values page (not on that page itself). */
  offerValuesPage?: boolean
  className?: string
}) {
  const fieldsQuery = useQuery(eventFieldsQuery(projectId))
  const fields = fieldsQuery.data ?? FALLBACK_FIELDS
  const project = useQuery(projectQuery(projectId))
  const organizationId = project.data?.organization_id
  // Collaborators name assignee chips and suggestions: fetched once someone uses the bar.
  const [engaged, setEngaged] = useState(false)
  const needsPeople = 'error.assigned_to' in filters || engaged
  const people = useQuery({
    ...collaboratorsQuery(organizationId ?? ''),
    enabled: organizationId !== undefined && needsPeople,
  })

  const chips = Object.entries(withoutFields(filters, TIME_FIELDS)).flatMap(([fieldId, conditions]) =>
    conditions.map((condition) => ({ fieldId, condition, text: describeChip(fieldId, condition, fields, people.data) })),
  )

  return (
    <div role="search" aria-label="Filters" className={cn('flex flex-col gap-2', className)} onFocus={() => setEngaged(true)}>
      <div className="flex flex-wrap items-center gap-2">
        <div className="flex min-w-0 flex-1 flex-wrap items-center gap-1.5 rounded-md border max-sm:basis-full border-border bg-surface px-2 py-1 focus-within:ring-2 focus-within:ring-accent/40">
          {chips.length > 0 ? (
            <ul aria-label="Active filters" className="contents">
              {chips.map(({ fieldId, condition, text }) => (
                <li
                  key={`${fieldId}:${condition.type}:${condition.value}`}
                  className="inline-flex max-w-full items-center gap-1 rounded-md border border-border bg-surface-muted py-0.5 pr-0.5 pl-2 text-xs"
                >
                  <span className="truncate" title={text}>
                    {text}
                  </span>
                  <Button
                    size="icon-xs"
                    variant="ghost"
                    aria-label={`Remove filter ${text}`}
                    onClick={() => onChange(removeCondition(filters, fieldId, condition))}
                  >
                    <X aria-hidden="true" />
                  </Button>
                </li>
              ))}
            </ul>
          ) : null}
          <FilterCombobox
            projectId={projectId}
            fields={fields}
            collaborators={people.data}
            onAdd={(fieldId, condition) => onChange(addCondition(filters, fieldId, condition))}
            valuesPageFilters={offerValuesPage ? filters : undefined}
          />
          {chips.length > 0 ? (
            <Button size="sm" variant="ghost" onClick={() => onChange(withoutFields(filters, chips.map((chip) => chip.fieldId)))}>
              Clear filters
            </Button>
          ) : null}
        </div>
        <TimeRangeSelect id="error-time-range" filters={filters} onChange={onChange} />
      </div>
      {SEARCH_FIELD_ID in filters ? (
        <p className="text-xs text-muted-foreground">Search looked in {SEARCHED_FIELDS.join(', ').replace(/, ([^,]+)$/, ' and $1')}.</p>
      ) : null}
    </div>
  )
}
