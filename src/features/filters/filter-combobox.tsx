import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { X } from 'lucide-react'
import { useId, useRef, useState } from 'react'
import type { Collaborator } from '../../../contract/collaborators.ts'
import {
  SEARCH_FIELD_ID,
  SEARCHED_FIELDS,
  type EventField,
  type FilterCondition,
  type Filters,
  type FilterType,
  type PivotFieldId,
} from '../../../contract/filters.ts'
import { pivotValuesQuery } from '../../api/pivots.ts'
import { Button } from '../../components/ui/button.tsx'
import { Label } from '../../components/ui/input.tsx'
import { cn } from '../../lib/cn.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { describePivotValue, pivotIdOfField } from '../pivots/to-pivot-filter.ts'
import { operatorLabel, toFilterSearch, type FilterOperator } from './to-filter-search.ts'

/** The input's id: the `/` shortcut and the journeys find it by this. */
export const FILTER_INPUT_ID = 'error-filter-input'

type Operator = FilterOperator

const operatorsOf = (types: readonly FilterType[]): Operator[] => [
  ...(types.includes('eq') ? (['eq'] as const) : []),
  ...(types.includes('ne') ? (['ne'] as const) : []),
  ...(types.includes('exact') ? (['exact'] as const) : []),
  ...(types.includes('empty') ? (['empty', 'present'] as const) : []),
]

interface Option {
  key: string
  label: string
  hint?: string
  /** What typing matches: the label and hint unless given (a count in the hint is not worth matching). */
  terms?: string[]
  /** The text as typed, not a suggested value: set apart so it is not mistaken for one. */
  typed?: boolean
  /** Not a value but a link to the field's values page: set apart too, in the link colour. */
  page?: boolean
  /** Choosing a field moves on to its values; choosing a value adds the condition; the last opens the field's values page. */
  action:
    | { kind: 'field'; field: EventField }
    | { kind: 'add'; condition: FilterCondition }
    | { kind: 'search'; condition: FilterCondition }
    | { kind: 'page'; pivotId: PivotFieldId }
}

const PIVOT_SUGGESTIONS = 20

/** How well an option matches what was typed: 0 equal (ignoring case), 1 starts with it, 2 contains it. */
function matchRank(option: Option, query: string): number {
  const terms = (option.terms ?? [option.label, option.hint ?? '']).map((term) => term.toLowerCase())
  if (terms.includes(query)) return 0
  return terms.some((term) => term.startsWith(query)) ? 1 : 2
}

/**
 * The filter input: an ARIA combobox that first suggests fields (from event_fields), then values
 * of the chosen field (pivot values, enumerations, or "me"/"anyone"/collaborators for the
 * assignee). Arrow keys move, Enter picks, Escape closes, Backspace on an empty input goes back.
 */
export function FilterCombobox({
  projectId,
  fields,
  collaborators,
  onAdd,
  valuesPageFilters,
}: {
  projectId: string
  fields: readonly EventField[]
  collaborators: readonly Collaborator[] | undefined
  onAdd: (fieldId: string, condition: FilterCondition) => void
  /** The view's filters, for "See all values" after a pivot field's suggestions; without them no such option. */
  valuesPageFilters?: Filters
}) {
  const navigate = useNavigate()
  const baseId = useId()
  const listboxId = `${baseId}-listbox`
  const inputRef = useRef<HTMLInputElement>(null)
  const [text, setText] = useState('')
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  const [field, setField] = useState<EventField | null>(null)
  const [operator, setOperator] = useState<Operator>('eq')

  const pivotId = field ? pivotIdOfField(field.display_id) : null
  const wantsValues = open && field !== null && operator !== 'empty' && operator !== 'present'
  const pivotValues = useQuery({
    // Values seen anywhere in the project, most events first: read from the rollups, so they
    // come at once even with millions of events (the view's own filters would mean a scan).
    ...pivotValuesQuery(projectId, null, pivotId ?? 'user.id', {
      filters: {},
      perPage: PIVOT_SUGGESTIONS,
    }),
    enabled: wantsValues && pivotId !== null,
    // Another field's values must never stand in for this one's.
    placeholderData: undefined,
  })

  const reset = () => {
    setField(null)
    setText('')
    setActive(0)
    setOperator('eq')
  }

  const add = (condition: FilterCondition) => {
    if (!field) return
    onAdd(field.display_id, condition)
    reset()
    setOpen(false)
    inputRef.current?.focus()
  }

  const chooseField = (next: EventField) => {
    setField(next)
    setOperator(operatorsOf(next.filter_types)[0] ?? 'eq')
    setText('')
    setActive(0)
    setOpen(true)
    inputRef.current?.focus()
  }

  const select = (option: Option) => {
    if (option.action.kind === 'field') chooseField(option.action.field)
    else if (option.action.kind === 'add') add(option.action.condition)
    else if (option.action.kind === 'search') {
      onAdd(SEARCH_FIELD_ID, option.action.condition)
      reset()
      setOpen(false)
      inputRef.current?.focus()
    }
    else
      void navigate({
        to: '/projects/$projectId/pivots/$fieldId',
        params: { projectId, fieldId: option.action.pivotId },
        search: { f: toFilterSearch(valuesPageFilters ?? {}) },
      })
  }

  const query = text.trim().toLowerCase()
  const matches = (...candidates: (string | null | undefined)[]) =>
    !query || candidates.some((candidate) => candidate?.toLowerCase().includes(query))
  const optionMatches = (option: Option) => matches(...(option.terms ?? [option.label, option.hint]))

  let options: Option[] = []
  if (!field) {
    options = fields
      .filter((f) => f.scope !== 'time' && f.display_id !== SEARCH_FIELD_ID && matches(f.name, f.display_id))
      .map((f): Option => ({ key: f.display_id, label: f.name, hint: f.display_id, action: { kind: 'field', field: f } }))
    // Free text: searched in error class, message and context. First when no field's name matches
    // what was typed ("TypeError", "jwt"), after the fields otherwise ("user" is most likely a field).
    const typed = text.trim()
    if (typed) {
      const search: Option = {
        key: `search:${typed}`,
        label: `Search “${typed}”`,
        hint: `in ${SEARCHED_FIELDS.join(', ')}`,
        typed: true,
        action: { kind: 'search', condition: { type: 'eq', value: typed } },
      }
      options = options.length === 0 ? [search] : [...options, search]
    }
  } else if (operator === 'empty' || operator === 'present') {
    const value = operator === 'empty' ? 'true' : 'false'
    options = [
      { key: operator, label: `${field.name} ${operatorLabel(operator)}`, action: { kind: 'add', condition: { type: 'empty', value } } },
    ]
  } else {
    const type = operator
    const valueOption = (value: string, label = value, hint?: string, terms?: string[]): Option => ({
      key: `value:${value}`,
      label,
      hint,
      terms,
      action: { kind: 'add', condition: { type, value } },
    })
    if (field.values) {
      options = field.values.filter((value) => matches(value)).map((value) => valueOption(value))
    } else {
      if (field.display_id === 'error.assigned_to') {
        options = [
          valueOption('me', 'Me'),
          valueOption('anyone', 'Anyone', 'assigned to someone'),
          ...(collaborators ?? []).map((c) => valueOption(c.id, c.name || c.email, c.email, [c.name, c.email])),
        ].filter(optionMatches)
      } else if (pivotId && pivotValues.data) {
        options = pivotValues.data.items
          .filter((value) => value.event_field_value !== '')
          .map((value) => {
            const { primary, secondary } = describePivotValue(value)
            const hint = [secondary, formatCountOf(value.events, 'event')].filter(Boolean).join(' · ')
            return valueOption(value.event_field_value, primary, hint, [value.event_field_value, primary])
          })
          .filter(optionMatches)
      }
      const typed = text.trim()
      // An exact-match field compares whole values: a fragment such as "stag" matches nothing, and
      // "is not stag" excludes nothing. So the best matching suggestion comes first (Enter picks it),
      // and the typed text is offered after the suggestions, marked as typed.
      const exact = field.match === 'exact'
      if (exact && query) {
        options = options
          .map((option, index) => ({ option, index, rank: matchRank(option, query) }))
          .sort((a, b) => a.rank - b.rank || a.index - b.index)
          .map(({ option }) => option)
      }
      if (typed && !options.some((option) => option.key === `value:${typed}`)) {
        const literal: Option = {
          key: `typed:${typed}`,
          label: `“${typed}”`,
          hint: exact ? 'as typed' : operatorLabel(type, 'substring'),
          typed: true,
          action: { kind: 'add', condition: { type, value: typed } },
        }
        options = exact ? [...options, literal] : [literal, ...options]
      }
      // The suggestions are the top few: the field's page lists every value, with counts and first/last seen.
      if (pivotId && valuesPageFilters && pivotValues.data) {
        options = [
          ...options,
          { key: 'page', label: `See all values of ${field.name}`, hint: 'in this view', page: true, action: { kind: 'page', pivotId } },
        ]
      }
    }
  }
  const activeIndex = Math.min(active, Math.max(options.length - 1, 0))
  const activeOption = open ? options[activeIndex] : undefined
  const loadingValues = wantsValues && pivotId !== null && pivotValues.isPending
  const showPanel = open && (options.length > 0 || loadingValues || pivotValues.isError)

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        event.preventDefault()
        if (!open) {
          setOpen(true)
          setActive(0)
          return
        }
        if (options.length === 0) return
        const step = event.key === 'ArrowDown' ? 1 : -1
        setActive((activeIndex + step + options.length) % options.length)
        return
      }
      case 'Home':
      case 'End':
        if (!open || options.length === 0) return
        event.preventDefault()
        setActive(event.key === 'Home' ? 0 : options.length - 1)
        return
      case 'Enter':
        if (activeOption) {
          event.preventDefault()
          select(activeOption)
        }
        return
      case 'Escape':
        if (open) {
          event.preventDefault()
          setOpen(false)
        } else if (field) {
          event.preventDefault()
          reset()
        }
        return
      case 'Backspace':
        if (text === '' && field) {
          event.preventDefault()
          reset()
          setOpen(true)
        }
        return
    }
  }

  const operators = field ? operatorsOf(field.filter_types) : []

  return (
    <div className="relative flex min-w-[min(16rem,100%)] flex-1 flex-wrap items-center gap-1.5">
      <Label htmlFor={FILTER_INPUT_ID} className="sr-only">
        Filter errors
      </Label>
      {field ? (
        <span className="inline-flex items-center gap-1 rounded-md bg-accent-soft py-0.5 pr-0.5 pl-2 text-xs text-accent">
          <span className="font-medium">{field.name}</span>
          {operators.length > 1 ? (
            // A field's look would be out of place inside the chip: a plain, borderless select.
            <select
              aria-label={`Condition on ${field.name}`}
              className="h-6 w-auto min-w-0 rounded-md border border-transparent bg-transparent px-1 pr-6 text-xs text-accent field-sizing-content disabled:opacity-50"
              value={operator}
              onChange={(event) => {
                const next = operators.find((o) => o === event.target.value)
                if (!next) return
                setOperator(next)
                setActive(0)
                setOpen(true)
                inputRef.current?.focus()
              }}
            >
              {operators.map((o) => (
                <option key={o} value={o}>
                  {operatorLabel(o, field.match)}
                </option>
              ))}
            </select>
          ) : (
            <span>{operatorLabel(operators[0] ?? 'eq', field.match)}</span>
          )}
          <Button
            size="icon-xs"
            variant="ghost"
            tone="accent"
            aria-label={`Cancel the ${field.name} filter`}
            onClick={() => {
              reset()
              inputRef.current?.focus()
            }}
          >
            <X aria-hidden="true" />
          </Button>
        </span>
      ) : null}
      <input
        ref={inputRef}
        id={FILTER_INPUT_ID}
        type="text"
        role="combobox"
        autoComplete="off"
        spellCheck={false}
        aria-expanded={showPanel}
        aria-controls={listboxId}
        aria-autocomplete="list"
        aria-activedescendant={showPanel && activeOption ? `${baseId}-option-${activeIndex}` : undefined}
        placeholder={field ? `Value of ${field.name}…` : 'Search, or filter by a field…'}
        className="h-8 min-w-40 flex-1 bg-transparent px-1 text-sm text-foreground placeholder:text-muted-foreground focus:outline-none"
        value={text}
        onChange={(event) => {
          setText(event.target.value)
          setActive(0)
          setOpen(true)
        }}
        onFocus={() => setOpen(true)}
        onClick={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <div
        className={cn(
          'absolute top-full left-0 z-20 mt-1 w-full max-w-md overflow-hidden rounded-md border border-border bg-surface shadow-md',
          showPanel ? undefined : 'hidden',
        )}
      >
        {loadingValues ? (
          <p role="status" className="px-3 py-2 text-xs text-muted-foreground">
            Loading values…
          </p>
        ) : null}
        {pivotValues.isError && wantsValues ? (
          <p className="px-3 py-2 text-xs text-danger">Could not load values; type one instead.</p>
        ) : null}
        {/* Out of the tab order: Chromium makes a scrolling list focusable, and Tab from the input
            would land on it just as the input's blur hides it, dropping focus to the page. */}
        <ul
          id={listboxId}
          tabIndex={-1}
          role="listbox"
          aria-label={field ? `Values of ${field.name}` : 'Fields'}
          className="max-h-72 overflow-y-auto py-1"
        >
          {options.map((option, index) => (
            <li
              key={option.key}
              id={`${baseId}-option-${index}`}
              role="option"
              aria-selected={index === activeIndex}
              className={cn(
                'flex cursor-pointer items-baseline justify-between gap-3 px-3 py-1.5',
                index === activeIndex ? 'bg-accent-soft text-accent' : option.page ? 'text-accent' : 'text-foreground',
                // The typed text after suggestions: set apart, so it does not read as one of them.
                (option.typed || option.page) && index > 0 ? 'border-t border-border' : undefined,
                option.page ? 'text-xs font-medium' : 'text-sm',
              )}
              // Keep focus in the input so typing and the keys go on working.
              onMouseDown={(event) => event.preventDefault()}
              onMouseMove={() => setActive(index)}
              onClick={() => select(option)}
            >
              <span className="min-w-0 truncate">{option.label}</span>
              {option.hint ? <span className="shrink-0 truncate font-mono text-xs text-muted-foreground">{option.hint}</span> : null}
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
