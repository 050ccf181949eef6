// Links to a page of pivot values, and the values page's error state. Apart from the page
// itself, so that route error states (kept in the main bundle) do not pull the page's chunk in.
import { Link, type ErrorComponentProps } from '@tanstack/react-router'
import type * as React from 'react'
import type { Filters, PivotFieldId } from '../../../contract/filters.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { toFilterSearch } from '../filters/to-filter-search.ts'
import { RouteError } from '../layout/route-states.tsx'
import { errorFilterSearch } from './to-pivot-filter.ts'

/**
 * A link to a page of the same values: the project's pivot page, or the error's when the page is
 * scoped to one error. Two typed links rather than one untyped one.
 */
export function PivotPageLink({
  projectId,
  errorId,
  pivotId,
  filters,
  cursor,
  state,
  className,
  children,
}: {
  projectId: string
  errorId: string | null
  pivotId: PivotFieldId
  filters: Filters
  cursor?: string
  state?: { pageTrail: string[] }
  className?: string
  children: React.ReactNode
}) {
  return errorId ? (
    <Link
      to="/projects/$projectId/errors/$errorId/pivots/$fieldId"
      params={{ projectId, errorId, fieldId: pivotId }}
      search={{ f: errorFilterSearch(filters), cursor }}
      state={state}
      className={className}
    >
      {children}
    </Link>
  ) : (
    <Link
      to="/projects/$projectId/pivots/$fieldId"
      params={{ projectId, fieldId: pivotId }}
      search={{ f: toFilterSearch(filters), cursor }}
      state={state}
      className={className}
    >
      {children}
    </Link>
  )
}

/**
 * The values page's error state. A stale or foreign page link (cursor) fails every retry, so it
 * also offers the first page, of the project's values or the error's.
 */
export function PivotValuesError({
  projectId,
  errorId = null,
  pivotId,
  filters,
  cursor,
  ...props
}: ErrorComponentProps & { projectId: string; errorId?: string | null; pivotId: PivotFieldId; filters: Filters; cursor?: string }) {
  return (
    <RouteError
      {...props}
      title="Could not load these values"
      action={
        cursor ? (
          <PivotPageLink projectId={projectId} errorId={errorId} pivotId={pivotId} filters={filters} className={buttonVariants({ size: 'sm', variant: 'secondary' })}>
            First page
          </PivotPageLink>
        ) : undefined
      }
    />
  )
}
