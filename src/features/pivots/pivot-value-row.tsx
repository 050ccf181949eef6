import { Link } from '@tanstack/react-router'
import type { Filters, PivotFieldId } from '../../../contract/filters.ts'
import type { PivotValue } from '../../../contract/pivots.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { toFilterSearch } from '../filters/to-filter-search.ts'
import { describePivotValue, errorFilterSearch, formatProportion, pivotFieldName, withPivotValue } from './to-pivot-filter.ts'

const linkClass = 'min-w-0 rounded text-foreground hover:underline'

/**
 * One pivot value: a link narrowing to it, its share of the events as a bar and a percentage,
 * and its event count. Values come from events: rendered as text only. A value of one error's
 * pivot narrows that error's page (its other filters and open pivot tab kept); a project's
 * narrows the errors list.
 */
export function PivotValueRow({
  projectId,
  errorId = null,
  pivotId,
  value,
  filters,
}: {
  projectId: string
  /** The error whose events the values are of; null for the project's. */
  errorId?: string | null
  pivotId: PivotFieldId
  value: PivotValue
  filters: Filters
}) {
  const { primary, secondary } = describePivotValue(value)
  const percent = formatProportion(value.proportion)
  const width = `${Math.min(100, Math.max(0, value.proportion * 100))}%`
  const title = secondary ? `${primary} (${secondary})` : primary
  const label = (
    <>
      {/* The id under the name and email: on one line in a side panel both were cut off. */}
      <span className="block truncate">{primary}</span>
      {secondary ? <span className="block truncate font-mono text-xs text-muted-foreground">{secondary}</span> : null}
    </>
  )
  return (
    <div className="flex flex-col gap-1 py-1.5">
      <div className="flex min-w-0 items-baseline justify-between gap-3 text-sm">
        {errorId ? (
          <Link
            to="/projects/$projectId/errors/$errorId"
            params={{ projectId, errorId }}
            // The pivot tab and resolution stay; the events' page starts over with the new filter.
            search={(prev) => ({
              ...prev,
              cursor: undefined,
              f: errorFilterSearch(withPivotValue(filters, pivotId, value.event_field_value)),
            })}
            aria-label={`Show this error’s events where ${pivotFieldName(pivotId)} is ${value.event_field_value || '(none)'}`}
            className={linkClass}
            title={title}
          >
            {label}
          </Link>
        ) : (
          <Link
            to="/projects/$projectId/errors"
            params={{ projectId }}
            search={{ f: toFilterSearch(withPivotValue(filters, pivotId, value.event_field_value)) }}
            aria-label={`Show errors where ${pivotFieldName(pivotId)} is ${value.event_field_value || '(none)'}`}
            className={linkClass}
            title={title}
          >
            {label}
          </Link>
        )}
        <span className="shrink-0 text-xs text-muted-foreground tabular-nums">
          <span className="font-medium text-foreground">{percent}</span>
          <span className="ml-2">{formatCountOf(value.events, 'event')}</span>
        </span>
      </div>
      <div aria-hidden="true" className="h-1.5 overflow-hidden rounded-full bg-surface-muted">
        <div className="h-full rounded-full bg-accent" style={{ width }} />
      </div>
    </div>
  )
}
