import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ErrorStatus } from '../../../contract/errors.ts'
import type { Filters } from '../../../contract/filters.ts'
import { errorStatusCountsQuery } from '../../api/errors.ts'
import { cn } from '../../lib/cn.ts'
import { formatCount } from '../../lib/relative-time.ts'
import { toFilterSearch } from '../filters/to-filter-search.ts'

export type StatusTab = ErrorStatus | 'all'

/** The tabs in order, with their labels. */
export const STATUS_TABS: readonly { tab: StatusTab; label: string }[] = [
  { tab: 'open', label: 'Open' },
  { tab: 'snoozed', label: 'Snoozed' },
  { tab: 'fixed', label: 'Fixed' },
  { tab: 'ignored', label: 'Ignored' },
  { tab: 'all', label: 'All' },
]

/** The tab the filters show: one status (eq), all (no status filter), or none of the tabs (another status filter). */
export function statusTabOf(filters: Filters): StatusTab | null {
  const conditions = filters['error.status']
  if (!conditions || conditions.length === 0) return 'all'
  const only = conditions.length === 1 ? conditions[0] : undefined
  return only?.type === 'eq' ? (only.value as ErrorStatus) : null
}

/** The filters with a tab chosen: the status condition replaced (first, as the default view has it), the others kept. */
export function withStatusTab(filters: Filters, tab: StatusTab): Filters {
  const { 'error.status': _status, ...others } = filters
  return tab === 'all' ? others : { 'error.status': [{ type: 'eq', value: tab }], ...others }
}

/**
 * The status tabs above the errors list: links (each tab is a URL of its own, the filters' status
 * condition) with the number of errors matching the other filters in each status.
 */
export function StatusTabs({ projectId, filters, className }: { projectId: string; filters: Filters; className?: string }) {
  const counts = useQuery(errorStatusCountsQuery(projectId, filters))
  const current = statusTabOf(filters)
  return (
    <nav aria-label="Error status" className={cn('min-w-0', className)}>
      {/* Wrapped, never scrolled sideways: on a phone every tab stays in sight and in Tab order
          (a second line rather than "Ignored" and "All" hidden past the edge). */}
      <ul className="flex flex-wrap gap-x-0.5 gap-y-0.5 sm:gap-x-1">
        {STATUS_TABS.map(({ tab, label }) => {
          const count = counts.data ? (tab === 'all' ? counts.data.total : counts.data.counts[tab]) : undefined
          const selected = tab === current
          return (
            <li key={tab}>
              <Link
                to="/projects/$projectId/errors"
                params={{ projectId }}
                search={(prev) => ({ ...prev, f: toFilterSearch(withStatusTab(filters, tab)) })}
                aria-current={selected ? 'page' : undefined}
                className={cn(
                  'inline-flex h-7 items-center gap-1 rounded-md px-2 text-sm whitespace-nowrap sm:h-8 sm:gap-1.5 sm:px-2.5',
                  selected
                    ? 'bg-accent-soft font-medium text-accent hover:bg-accent-soft hover:text-accent'
                    : 'text-muted-foreground hover:bg-surface-muted hover:text-foreground',
                )}
              >
                {label}{' '}
                <span className="text-xs tabular-nums">
                  {count === undefined ? (counts.isError ? '' : '…') : formatCount(count)}
                </span>
              </Link>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}
