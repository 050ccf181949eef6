import { Plus, X } from 'lucide-react'
import { useId, useState } from 'react'
import { checkCondition, filterField, type FilterCondition, type Filters } from '../../../contract/filters.ts'
import { Button } from '../../components/ui/button.tsx'
import { Input, Label, Select } from '../../components/ui/input.tsx'
import { describeChip } from '../filters/filter-bar.tsx'
import { addCondition, operatorLabel, removeCondition, type FilterOperator } from '../filters/to-filter-search.ts'
import { isPersonExact, OTHER_FIELDS, otherConditions, PERSON_FIELDS, personValue, withPersonValue, type PersonField } from './to-privacy-selection.ts'

const PERSON_LABELS: Record<PersonField, { label: string; placeholder: string; exactly?: string }> = {
  'user.id': { label: 'User id', placeholder: 'e.g. 8f2c-41d7' },
  'user.email': { label: 'User email', placeholder: 'e.g. jane@example.com', exactly: 'This whole address only' },
  'user.name': { label: 'User name', placeholder: 'e.g. Jane Doe', exactly: 'This whole name only' },
}

const conditionOf = (operator: FilterOperator, value: string): FilterCondition =>
  operator === 'empty' || operator === 'present' ? { type: 'empty', value: operator === 'empty' ? 'true' : 'false' } : { type: operator, value }

/**
 * Whose events: the person's id, email or name, and any other condition of the errors list's
 * filters to narrow them. Every change goes through `onChange` (the URL).
 */
export function SelectionForm({ filters, onChange }: { filters: Filters; onChange: (next: Filters) => void }) {
  const id = useId()
  const [fieldId, setFieldId] = useState(OTHER_FIELDS.find((f) => f.display_id === 'app.release_stage')?.display_id ?? OTHER_FIELDS[0]!.display_id)
  const [operator, setOperator] = useState<FilterOperator>('eq')
  const [value, setValue] = useState('')
  const definition = filterField(fieldId)
  const operators: FilterOperator[] = [
    ...(definition?.types.includes('eq') ? (['eq'] as const) : []),
    ...(definition?.types.includes('ne') ? (['ne'] as const) : []),
    ...(definition?.types.includes('exact') ? (['exact'] as const) : []),
    ...(definition?.types.includes('empty') ? (['empty', 'present'] as const) : []),
  ]
  const needsValue = operator !== 'empty' && operator !== 'present'
  const condition = conditionOf(operator, value.trim())
  const problem = definition && (needsValue ? value.trim() !== '' : true) ? checkCondition(definition, condition.type, condition.value) : null
  const canAdd = definition !== undefined && (!needsValue || value.trim() !== '') && problem === null
  const others = otherConditions(filters)

  return (
    <div className="flex flex-col gap-4">
      <div className="grid gap-3 md:grid-cols-3">
        {PERSON_FIELDS.map((field) => {
          const { label, placeholder, exactly } = PERSON_LABELS[field]
          // A user id is matched whole; an email or a name as a part of it, unless "whole … only" is ticked.
          const exact = exactly === undefined || isPersonExact(filters, field)
          return (
            <div key={field} className="flex min-w-0 flex-col gap-1.5">
              <Label htmlFor={`${id}-${field}`}>
                {label} <span className="font-normal text-muted-foreground">({exact ? 'exactly' : 'contains'})</span>
              </Label>
              <Input
                id={`${id}-${field}`}
                autoComplete="off"
                spellCheck={false}
                placeholder={placeholder}
                value={personValue(filters, field)}
                onChange={(event) => onChange(withPersonValue(filters, field, event.target.value))}
              />
              {exactly ? (
                <label className="flex items-center gap-2 text-sm text-muted-foreground">
                  <input
                    type="checkbox"
                    className="size-4"
                    checked={exact}
                    // Ticked with the value it applies to: an empty field has nothing to match.
                    disabled={personValue(filters, field) === ''}
                    onChange={(event) => onChange(withPersonValue(filters, field, personValue(filters, field), event.target.checked))}
                  />
                  {exactly}
                </label>
              ) : null}
            </div>
          )
        })}
      </div>

      {others.length > 0 ? (
        <ul aria-label="Other conditions" className="flex flex-wrap gap-2">
          {others.map(({ fieldId: other, condition: c }) => {
            const text = describeChip(other, c, [], undefined)
            return (
              <li key={`${other}:${c.type}:${c.value}`} className="flex max-w-full items-center gap-1 rounded-full border border-border bg-surface-muted py-0.5 pr-1 pl-3 text-sm">
                <span className="min-w-0 truncate" title={text}>
                  {text}
                </span>
                <Button variant="ghost" size="icon-sm" aria-label={`Remove condition ${text}`} onClick={() => onChange(removeCondition(filters, other, c))}>
                  <X aria-hidden="true" />
                </Button>
              </li>
            )
          })}
        </ul>
      ) : null}

      <form
        aria-label="Add a condition"
        className="grid gap-2 sm:grid-cols-[minmax(0,12rem)_minmax(0,10rem)_minmax(0,1fr)_auto] sm:items-end"
        onSubmit={(event) => {
          event.preventDefault()
          if (!canAdd) return
          onChange(addCondition(filters, fieldId, condition))
          setValue('')
        }}
      >
        <div className="flex min-w-0 flex-col gap-1.5">
          <Label htmlFor={`${id}-field`}>Also where</Label>
          <Select
            id={`${id}-field`}
            value={fieldId}
            onChange={(event) => {
              setFieldId(event.target.value)
              setOperator('eq')
              setValue('')
            }}
          >
            {OTHER_FIELDS.map((f) => (
              <option key={f.display_id} value={f.display_id}>
                {f.name}
              </option>
            ))}
          </Select>
        </div>
        <div className="flex min-w-0 flex-col gap-1.5">
          <Label htmlFor={`${id}-operator`}>Condition</Label>
          <Select id={`${id}-operator`} value={operator} onChange={(event) => setOperator(event.target.value as FilterOperator)}>
            {operators.map((op) => (
              <option key={op} value={op}>
                {operatorLabel(op, definition?.match)}
              </option>
            ))}
          </Select>
        </div>
        <div className="flex min-w-0 flex-col gap-1.5">
          <Label htmlFor={`${id}-value`}>Value</Label>
          {definition?.values && needsValue ? (
            <Select id={`${id}-value`} value={value} onChange={(event) => setValue(event.target.value)}>
              <option value="">Choose…</option>
              {definition.values.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </Select>
          ) : (
            <Input
              id={`${id}-value`}
              autoComplete="off"
              disabled={!needsValue}
              placeholder={definition?.scope === 'time' ? 'e.g. 30d or 2026-01-31' : undefined}
              value={needsValue ? value : ''}
              aria-invalid={problem !== null && value.trim() !== '' ? true : undefined}
              aria-describedby={problem !== null && value.trim() !== '' ? `${id}-problem` : undefined}
              onChange={(event) => setValue(event.target.value)}
            />
          )}
        </div>
        <Button type="submit" disabled={!canAdd}>
          <Plus aria-hidden="true" />
          Add condition
        </Button>
        {problem !== null && value.trim() !== '' ? (
          <p id={`${id}-problem`} className="text-sm text-danger sm:col-span-4">
            {problem}
          </p>
        ) : null}
      </form>
    </div>
  )
}
