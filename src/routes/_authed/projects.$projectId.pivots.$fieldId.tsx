import { createFileRoute, notFound, type ErrorComponentProps } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { pivotValuesQuery } from '../../api/pivots.ts'
import { projectQuery } from '../../api/projects.ts'
import { filterSearchSchema, fromFilterSearch, toFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, PageSkeleton, ResourceNotFound } from '../../features/layout/route-states.tsx'
import { PivotValuesError } from '../../features/pivots/pivot-page-link.tsx'
import { PIVOT_PAGE_SIZE } from '../../features/pivots/pivot-fields.ts'
import { PivotValuesPage } from '../../features/pivots/pivot-values-page.tsx'
import { isPivotFieldId } from '../../features/pivots/to-pivot-filter.ts'

export const Route = createFileRoute('/_authed/projects/$projectId/pivots/$fieldId')({
  validateSearch: z.object({ f: filterSearchSchema, cursor: z.catch(z.optional(z.string()), undefined) }),
  loaderDeps: ({ search: { f, cursor } }) => ({ filters: fromFilterSearch(f), cursor }),
  loader: ({ context: { queryClient }, params: { projectId, fieldId }, deps }) => {
    if (!isPivotFieldId(fieldId)) throw notFound()
    return orNotFound(
      Promise.all([
        queryClient.ensureQueryData(projectQuery(projectId)),
        queryClient.ensureQueryData(
          pivotValuesQuery(projectId, null, fieldId, { filters: deps.filters, perPage: PIVOT_PAGE_SIZE, cursor: deps.cursor }),
        ),
      ]),
    )
  },
  pendingComponent: () => <PageSkeleton label="Loading the values" />,
  errorComponent: PivotError,
  notFoundComponent: PivotNotFound,
  component: PivotPage,
})

function PivotPage() {
  const { projectId, fieldId } = Route.useParams()
  const { f, cursor } = Route.useSearch()
  const navigate = Route.useNavigate()
  if (!isPivotFieldId(fieldId)) return <PivotNotFound />
  return (
    <PivotValuesPage
      projectId={projectId}
      pivotId={fieldId}
      filters={fromFilterSearch(f)}
      cursor={cursor}
      onFiltersChange={(next) => void navigate({ search: { f: toFilterSearch(next), cursor: undefined } })}
    />
  )
}

function PivotError(props: ErrorComponentProps) {
  const { projectId, fieldId } = Route.useParams()
  const { f, cursor } = Route.useSearch()
  if (!isPivotFieldId(fieldId)) return <PivotNotFound />
  return <PivotValuesError {...props} projectId={projectId} pivotId={fieldId} filters={fromFilterSearch(f)} cursor={cursor} />
}

function PivotNotFound() {
  const { projectId, fieldId } = Route.useParams()
  return (
    <ResourceNotFound title="Nothing to show" projectId={projectId}>
      <code className="font-mono break-all">{fieldId}</code> is not a field with pivot values in
      this project, or the project does not exist.
    </ResourceNotFound>
  )
}
