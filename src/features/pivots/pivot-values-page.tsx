import { useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ChevronLeft, ChevronRight, ChevronsLeft } from 'lucide-react'
import type { Filters, PivotFieldId } from '../../../contract/filters.ts'
import { pivotValuesQuery } from '../../api/pivots.ts'
import { projectQuery } from '../../api/projects.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { EmptyState } from '../../components/ui/states.tsx'
import { usePageTrail } from '../../lib/page-trail.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { FilterBar } from '../filters/filter-bar.tsx'
import { toFilterSearch } from '../filters/to-filter-search.ts'
import { PivotValueRow } from './pivot-value-row.tsx'
import { pivotFieldName } from './to-pivot-filter.ts'

export const PIVOT_PAGE_SIZE = 50

/**
 * Every value of one field among the project's filtered events, most events first, a page at a
 * time (the cursor is in the URL). Each value opens the errors list narrowed to it.
 */
export function PivotValuesPage({
  projectId,
  pivotId,
  filters,
  cursor,
  onFiltersChange,
}: {
  projectId: string
  pivotId: PivotFieldId
  filters: Filters
  cursor: string | undefined
  onFiltersChange: (next: string[]) => void
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const { data: page } = useSuspenseQuery(
    pivotValuesQuery(projectId, null, pivotId, { filters, perPage: PIVOT_PAGE_SIZE, cursor }),
  )
  const trail = usePageTrail(cursor)
  const name = pivotFieldName(pivotId)
  const search = toFilterSearch(filters)
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title={`${name} values`}
        description={
          <span className="tabular-nums">
            <Link to="/projects/$projectId/errors" params={{ projectId }} search={{ f: search }} className="text-accent hover:underline">
              {project.name}
            </Link>
            {page.totalCount !== null ? ` · ${formatCountOf(page.totalCount, 'value')}` : null}
          </span>
        }
      />
      <FilterBar projectId={projectId} filters={filters} onChange={(next) => onFiltersChange(toFilterSearch(next))} />
      {page.items.length === 0 ? (
        <EmptyState title={`No ${name} values`}>No events in this range and with these filters have one.</EmptyState>
      ) : (
        <div className="rounded-lg border border-border bg-surface">
          <ul aria-label={`${name} values`} className="divide-y divide-border px-4">
            {page.items.map((value) => (
              <li key={value.event_field_value} className="flex flex-col gap-0.5 py-1 sm:flex-row sm:items-center sm:gap-6">
                <div className="min-w-0 flex-1">
                  <PivotValueRow projectId={projectId} pivotId={pivotId} value={value} filters={filters} />
                </div>
                <p className="flex shrink-0 gap-3 text-xs text-muted-foreground">
                  <span>
                    first <RelativeTime value={value.first_seen} />
                  </span>
                  <span>
                    last <RelativeTime value={value.last_seen} />
                  </span>
                </p>
              </li>
            ))}
          </ul>
        </div>
      )}
      <nav aria-label="Pages" className="flex justify-end gap-2">
        {cursor && (trail.previous === null || trail.previous.cursor !== undefined) ? (
          <Link
            to="/projects/$projectId/pivots/$fieldId"
            params={{ projectId, fieldId: pivotId }}
            search={{ f: search }}
            className={buttonVariants({ size: 'sm' })}
          >
            <ChevronsLeft aria-hidden="true" />
            First page
          </Link>
        ) : null}
        {trail.previous ? (
          <Link
            to="/projects/$projectId/pivots/$fieldId"
            params={{ projectId, fieldId: pivotId }}
            search={{ f: search, cursor: trail.previous.cursor }}
            state={trail.previous.state}
            className={buttonVariants({ size: 'sm' })}
          >
            <ChevronLeft aria-hidden="true" />
            Previous page
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link
            to="/projects/$projectId/pivots/$fieldId"
            params={{ projectId, fieldId: pivotId }}
            search={{ f: search, cursor: page.nextCursor }}
            state={trail.nextState}
            className={buttonVariants({ size: 'sm' })}
          >
            Next page
            <ChevronRight aria-hidden="true" />
          </Link>
        ) : null}
      </nav>
    </div>
  )
}
