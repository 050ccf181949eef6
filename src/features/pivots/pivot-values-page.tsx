import { useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeft, ChevronLeft, ChevronRight, ChevronsLeft } from 'lucide-react'
import type * as React from 'react'
import type { Filters, PivotFieldId } from '../../../contract/filters.ts'
import { errorQuery } from '../../api/errors.ts'
import { pivotValuesQuery } from '../../api/pivots.ts'
import { projectQuery } from '../../api/projects.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { EmptyState } from '../../components/ui/states.tsx'
import { shortErrorClassLabel } from '../../lib/error-class.ts'
import { usePageTrail } from '../../lib/page-trail.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { FilterBar } from '../filters/filter-bar.tsx'
import { UserPrivacyLink } from '../privacy/user-privacy-link.tsx'
import { toFilterSearch } from '../filters/to-filter-search.ts'
import { ERROR_PIVOT_FIELDS, PIVOT_PAGE_SIZE, type ErrorPivotField } from './pivot-fields.ts'
import { ProjectNav } from '../projects/project-nav.tsx'
import { PivotPageLink } from './pivot-page-link.tsx'
import { PivotValueRow } from './pivot-value-row.tsx'
import { errorFilterSearch, pivotFieldName } from './to-pivot-filter.ts'

const isErrorPivotField = (pivotId: PivotFieldId): pivotId is ErrorPivotField =>
  (ERROR_PIVOT_FIELDS as readonly string[]).includes(pivotId)

/** The page's header for the whole project: the field, the project (its errors with these filters), the count. */
function ProjectScopeHeader({ projectId, name, filters, count }: { projectId: string; name: string; filters: Filters; count: string | null }) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  return (
    <PageHeader
      title={`${name} values`}
      description={
        <span className="tabular-nums">
          <Link to="/projects/$projectId/errors" params={{ projectId }} search={{ f: toFilterSearch(filters) }} className="text-accent hover:underline">
            {project.name}
          </Link>
          {count ? ` · ${count}` : null}
        </span>
      }
    />
  )
}

/**
 * The page's header for one error: says which error the values are about (its class and message,
 * from events: text only) and leads back to it with the same filters and this pivot's tab open.
 */
function ErrorScopeHeader({
  projectId,
  errorId,
  pivotId,
  name,
  filters,
  count,
}: {
  projectId: string
  errorId: string
  pivotId: PivotFieldId
  name: string
  filters: Filters
  count: string | null
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const { data: error } = useSuspenseQuery(errorQuery(projectId, errorId))
  const errorClass = shortErrorClassLabel(error.error_class)
  const back = {
    to: '/projects/$projectId/errors/$errorId',
    params: { projectId, errorId },
    search: { f: errorFilterSearch(filters), pivot: isErrorPivotField(pivotId) && pivotId !== ERROR_PIVOT_FIELDS[0] ? pivotId : undefined },
  } as const
  return (
    <PageHeader
      title={`${name} values of ${errorClass}`}
      description={
        <span className="flex min-w-0 flex-col gap-1">
          <span className="[overflow-wrap:anywhere]">
            Only the events of the error{' '}
            <Link {...back} className="font-mono text-accent underline underline-offset-2">
              {errorClass}
            </Link>
            {error.message ? (
              <>
                {' '}
                <span className="text-foreground" title={error.message}>
                  {error.message.length > 200 ? `${error.message.slice(0, 200)}…` : error.message}
                </span>
              </>
            ) : null}{' '}
            in{' '}
            <Link to="/projects/$projectId/errors" params={{ projectId }} className="text-accent underline underline-offset-2">
              {project.name}
            </Link>
            {count ? <span className="tabular-nums"> · {count}</span> : null}
          </span>
          <Link {...back} className="inline-flex w-fit items-center gap-1 rounded text-accent hover:underline">
            <ArrowLeft aria-hidden="true" className="size-3.5" />
            Back to the error
          </Link>
        </span>
      }
    />
  )
}

/**
 * Every value of one field among the filtered events of the project — or of one error, when
 * `errorId` is given — most events first, a page at a time (the cursor is in the URL). Each value
 * opens the errors list narrowed to it.
 */
export function PivotValuesPage({
  projectId,
  errorId = null,
  pivotId,
  filters,
  cursor,
  onFiltersChange,
}: {
  projectId: string
  /** The error the values are about; null for the whole project. */
  errorId?: string | null
  pivotId: PivotFieldId
  filters: Filters
  cursor: string | undefined
  onFiltersChange: (next: Filters) => void
}) {
  const { data: page } = useSuspenseQuery(
    pivotValuesQuery(projectId, errorId, pivotId, { filters, perPage: PIVOT_PAGE_SIZE, cursor }),
  )
  const trail = usePageTrail(cursor)
  const name = pivotFieldName(pivotId)
  const count = page.totalCount !== null ? formatCountOf(page.totalCount, 'value') : null
  return (
    <div className="flex flex-col gap-4">
      {errorId !== null ? (
        <ErrorScopeHeader projectId={projectId} errorId={errorId} pivotId={pivotId} name={name} filters={filters} count={count} />
      ) : (
        <>
          {/* A page of the project (its errors' values), not of one error: the project's tab bar, at Errors. */}
          <ProjectNav projectId={projectId} spacing="none" current="/projects/$projectId/errors" />
          <ProjectScopeHeader projectId={projectId} name={name} filters={filters} count={count} />
        </>
      )}
      <FilterBar projectId={projectId} filters={filters} onChange={onFiltersChange} />
      {page.items.length === 0 ? (
        <EmptyState title={`No ${name} values`}>
          {errorId !== null
            ? 'None of this error’s events in this range and with these filters have one.'
            : 'No events in this range and with these filters have one.'}
        </EmptyState>
      ) : (
        <div className="rounded-lg border border-border bg-surface">
          <ul aria-label={`${name} values`} className="divide-y divide-border px-4">
            {page.items.map((value) => (
              <li key={value.event_field_value} className="flex flex-col gap-0.5 py-1 sm:flex-row sm:items-center sm:gap-6">
                <div className="min-w-0 flex-1">
                  <PivotValueRow projectId={projectId} errorId={errorId} pivotId={pivotId} value={value} filters={filters} />
                </div>
                <p className="flex shrink-0 flex-wrap gap-3 text-xs text-muted-foreground">
                  <span>
                    first <RelativeTime value={value.first_seen} />
                  </span>
                  <span>
                    last <RelativeTime value={value.last_seen} />
                  </span>
                  {pivotId === 'user.id' && value.event_field_value ? (
                    <UserPrivacyLink
                      projectId={projectId}
                      user={{ id: value.event_field_value }}
                      label={`Privacy requests for ${value.event_field_value}`}
                      small
                    >
                      Privacy requests
                    </UserPrivacyLink>
                  ) : null}
                </p>
              </li>
            ))}
          </ul>
        </div>
      )}
      <nav aria-label="Pages" className="flex justify-end gap-2">
        {cursor && (trail.previous === null || trail.previous.cursor !== undefined) ? (
          <PivotPageLink projectId={projectId} errorId={errorId} pivotId={pivotId} filters={filters} className={buttonVariants({ size: 'sm' })}>
            <ChevronsLeft aria-hidden="true" />
            First page
          </PivotPageLink>
        ) : null}
        {trail.previous ? (
          <PivotPageLink
            projectId={projectId}
            errorId={errorId}
            pivotId={pivotId}
            filters={filters}
            cursor={trail.previous.cursor}
            state={trail.previous.state}
            className={buttonVariants({ size: 'sm' })}
          >
            <ChevronLeft aria-hidden="true" />
            Previous page
          </PivotPageLink>
        ) : null}
        {page.nextCursor ? (
          <PivotPageLink
            projectId={projectId}
            errorId={errorId}
            pivotId={pivotId}
            filters={filters}
            cursor={page.nextCursor}
            state={trail.nextState}
            className={buttonVariants({ size: 'sm' })}
          >
            Next page
            <ChevronRight aria-hidden="true" />
          </PivotPageLink>
        ) : null}
      </nav>
    </div>
  )
}

