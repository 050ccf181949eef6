import { createFileRoute, notFound, type ErrorComponentProps } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { errorQuery } from '../../api/errors.ts'
import { pivotValuesQuery } from '../../api/pivots.ts'
import { projectQuery } from '../../api/projects.ts'
import { filterSearchSchema, fromErrorFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, PageSkeleton, ResourceNotFound } from '../../features/layout/route-states.tsx'
import { PivotValuesError } from '../../features/pivots/pivot-page-link.tsx'
import { PIVOT_PAGE_SIZE } from '../../features/pivots/pivot-fields.ts'
import { PivotValuesPage } from '../../features/pivots/pivot-values-page.tsx'
import { errorFilterSearch, isPivotFieldId } from '../../features/pivots/to-pivot-filter.ts'

/** Every value of a field among one error's events ("See all values" in the error's pivots). */
export const Route = createFileRoute('/_authed/projects/$projectId/errors/$errorId/pivots/$fieldId')({
  validateSearch: z.object({ f: filterSearchSchema, cursor: z.catch(z.optional(z.string()), undefined) }),
  loaderDeps: ({ search: { f, cursor } }) => ({ filters: fromErrorFilterSearch(f), cursor }),
  loader: ({ context: { queryClient }, params: { projectId, errorId, fieldId }, deps }) => {
    if (!isPivotFieldId(fieldId)) throw notFound()
    return orNotFound(
      Promise.all([
        queryClient.ensureQueryData(projectQuery(projectId)),
        queryClient.ensureQueryData(errorQuery(projectId, errorId)),
        queryClient.ensureQueryData(
          pivotValuesQuery(projectId, errorId, fieldId, { filters: deps.filters, perPage: PIVOT_PAGE_SIZE, cursor: deps.cursor }),
        ),
      ]),
    )
  },
  pendingComponent: () => <PageSkeleton label="Loading the values" />,
  errorComponent: ErrorPivotError,
  notFoundComponent: ErrorPivotNotFound,
  component: ErrorPivotPage,
})

function ErrorPivotPage() {
  const { projectId, errorId, fieldId } = Route.useParams()
  const { f, cursor } = Route.useSearch()
  const navigate = Route.useNavigate()
  if (!isPivotFieldId(fieldId)) return <ErrorPivotNotFound />
  return (
    <PivotValuesPage
      projectId={projectId}
      errorId={errorId}
      pivotId={fieldId}
      filters={fromErrorFilterSearch(f)}
      cursor={cursor}
      onFiltersChange={(next) => void navigate({ search: { f: errorFilterSearch(next), cursor: undefined } })}
    />
  )
}

function ErrorPivotError(props: ErrorComponentProps) {
  const { projectId, errorId, fieldId } = Route.useParams()
  const { f, cursor } = Route.useSearch()
  if (!isPivotFieldId(fieldId)) return <ErrorPivotNotFound />
  return <PivotValuesError {...props} projectId={projectId} errorId={errorId} pivotId={fieldId} filters={fromErrorFilterSearch(f)} cursor={cursor} />
}

function ErrorPivotNotFound() {
  const { projectId, errorId, fieldId } = Route.useParams()
  return (
    <ResourceNotFound title="Nothing to show" projectId={projectId}>
      {isPivotFieldId(fieldId) ? (
        <>
          No error with id <code className="font-mono break-all">{errorId}</code> exists in this project, or you cannot see it.
        </>
      ) : (
        <>
          <code className="font-mono break-all">{fieldId}</code> is not a field with pivot values.
        </>
      )}
    </ResourceNotFound>
  )
}
