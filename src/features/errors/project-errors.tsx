import { useSuspenseInfiniteQuery, useSuspenseQuery } from '@tanstack/react-query'
import type { Direction } from '../../../contract/common.ts'
import type { ErrorSort } from '../../../contract/errors.ts'
import { errorsInfiniteQuery, type ErrorListParams } from '../../api/errors.ts'
import { projectQuery } from '../../api/projects.ts'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { ErrorList } from './error-list.tsx'
import { ErrorSortControls } from './error-sort-controls.tsx'
import { SendFirstError } from './send-first-error.tsx'

/** A project's errors page: its list with sort controls, or what to do when nothing has arrived yet. */
export function ProjectErrors({
  projectId,
  params,
  onParamsChange,
}: {
  projectId: string
  params: ErrorListParams
  onParamsChange: (next: { sort: ErrorSort; direction: Direction }) => void
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const { data } = useSuspenseInfiniteQuery(errorsInfiniteQuery(projectId, params))
  const firstPage = data.pages[0]
  const isEmpty = !firstPage || (firstPage.items.length === 0 && !firstPage.nextUrl)
  const total = firstPage?.totalCount ?? null

  return (
    <>
      <PageHeader
        title={`${project.name}: errors`}
        description={
          total !== null ? (
            <span className="tabular-nums">
              {formatCountOf(total, 'error')} · {formatCount(project.open_error_count)} open
            </span>
          ) : null
        }
        actions={
          isEmpty ? null : (
            <ErrorSortControls sort={params.sort} direction={params.direction} onChange={onParamsChange} />
          )
        }
      />
      {isEmpty ? (
        <SendFirstError project={project} origin={window.location.origin} />
      ) : (
        <ErrorList projectId={projectId} params={params} />
      )}
    </>
  )
}
