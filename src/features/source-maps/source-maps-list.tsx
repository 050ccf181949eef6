import { useMutation, useQuery } from '@tanstack/react-query'
import { Search, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { SourceMap } from '../../../contract/source-maps.ts'
import { deleteSourceMapMutation, sourceMapsQuery, SOURCE_MAPS_PAGE_SIZE } from '../../api/source-maps.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { Input } from '../../components/ui/input.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { announce } from '../../lib/announce.ts'
import { formatBytes } from '../../lib/format-bytes.ts'
import { useDebouncedValue } from '../../lib/use-debounced-value.ts'

const SEARCH_DEBOUNCE_MS = 300

/** What the upload applies to: its URL pattern, or for React Native its platform and build. */
export const uploadTarget = (map: SourceMap): string =>
  map.type === 'react_native'
    ? `React Native ${map.platform ?? ''}${map.dev ? ' (dev)' : ''}${map.app_version_code ? `, build ${map.app_version_code}` : ''}`
    : (map.minified_url ?? '')

const uploaderName = (map: SourceMap) =>
  map.uploaded_by.type === 'api_key' ? 'the API key' : (map.uploaded_by.name ?? map.uploaded_by.email ?? 'a former member')

function SourceMapRow({ map, canDelete, onDelete }: { map: SourceMap; canDelete: boolean; onDelete: (map: SourceMap) => void }) {
  const target = uploadTarget(map)
  return (
    <li aria-label={`${target}, ${map.app_version ? `version ${map.app_version}` : 'no app version'}`} className="flex flex-col gap-1 px-4 py-3 md:flex-row md:items-center md:gap-4">
      <div className="min-w-0 flex-1">
        <p className="font-mono text-sm [overflow-wrap:anywhere]">{target}</p>
        <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
          <Badge tone={map.app_version ? 'info' : 'neutral'}>{map.app_version ? `version ${map.app_version}` : 'no app version'}</Badge>
          {map.code_bundle_id ? <Badge>bundle {map.code_bundle_id}</Badge> : null}
          <span>
            {map.sources_count} {map.sources_count === 1 ? 'source' : 'sources'}
            {map.has_minified_file ? ', minified file' : ''} · {formatBytes(map.size_bytes)}
          </span>
          <span>
            by {uploaderName(map)} · <RelativeTime value={map.uploaded_at} />
          </span>
        </p>
      </div>
      <p className="text-xs text-muted-foreground tabular-nums md:w-36 md:text-right">
        {map.events_mapped.toLocaleString('en-US')} {map.events_mapped === 1 ? 'event' : 'events'} mapped
      </p>
      {canDelete ? (
        <Button size="sm" variant="ghost" tone="danger" className="self-start md:self-center" onClick={() => onDelete(map)}>
          <Trash2 aria-hidden="true" />
          Delete <span className="sr-only">the source map for {target}{map.app_version ? `, version ${map.app_version}` : ''}</span>
        </Button>
      ) : null}
    </li>
  )
}

/**
 * The project's uploads, newest first, searchable by URL pattern or app version (the search is
 * in the URL). Members see them; admins may delete one.
 */
export function SourceMapsList({
  projectId,
  isAdmin,
  search,
  onSearchChange,
}: {
  projectId: string
  isAdmin: boolean
  search: string
  onSearchChange: (search: string) => void
}) {
  const settledSearch = useDebouncedValue(search, SEARCH_DEBOUNCE_MS)
  const query = useQuery(sourceMapsQuery(projectId, settledSearch))
  const [deleting, setDeleting] = useState<SourceMap | null>(null)
  const remove = useMutation(deleteSourceMapMutation(projectId))

  const body = query.isPending ? (
    <LoadingRegion label="Loading the source maps" className="flex flex-col gap-2 p-4">
      <Skeleton className="h-10 w-full" />
      <Skeleton className="h-10 w-full" />
    </LoadingRegion>
  ) : query.isError ? (
    <ErrorState className="m-4" title="Could not load the source maps" error={query.error} onRetry={() => void query.refetch()} />
  ) : query.data.items.length === 0 ? (
    <div className="p-4">
      {settledSearch.trim() ? (
        <EmptyState title="No source map matches">No upload’s URL pattern or app version contains “{settledSearch.trim()}”.</EmptyState>
      ) : (
        <EmptyState title="No source maps yet">Drop one on the form above, or upload them from your build with Bugsnag’s upload tool.</EmptyState>
      )}
    </div>
  ) : (
    <>
      <ul aria-label="Uploaded source maps" aria-busy={query.isPlaceholderData || undefined} className="divide-y divide-border">
        {query.data.items.map((map) => (
          <SourceMapRow key={map.id} map={map} canDelete={isAdmin} onDelete={setDeleting} />
        ))}
      </ul>
      {query.data.nextUrl ? (
        <p className="border-t border-border px-4 py-2 text-xs text-muted-foreground">
          The newest {SOURCE_MAPS_PAGE_SIZE} are shown{query.data.totalCount ? ` of ${query.data.totalCount.toLocaleString('en-US')}` : ''}; search to find older ones.
        </p>
      ) : null}
    </>
  )

  return (
    <>
      <div className="border-b border-border px-4 py-3">
        <label className="relative block max-w-md">
          <span className="sr-only">Search source maps by URL or app version</span>
          <Search aria-hidden="true" className="pointer-events-none absolute top-2.5 left-2.5 size-4 text-muted-foreground" />
          <Input type="search" value={search} onChange={(event) => onSearchChange(event.target.value)} placeholder="Search by URL or app version" className="pl-8" />
        </label>
        {!isAdmin ? <p className="mt-2 text-xs text-muted-foreground">Only organization admins can delete source maps.</p> : null}
      </div>
      {body}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this source map?"
        description={
          deleting
            ? `${uploadTarget(deleting)}${deleting.app_version ? `, version ${deleting.app_version}` : ''}: events received from now on are no longer mapped with it. Events it already mapped keep their readable frames.`
            : ''
        }
        confirmLabel="Delete source map"
        destructive
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null)
              announce(`Deleted the source map for ${uploadTarget(deleting)}`)
            },
          })
        }
        onCancel={() => {
          setDeleting(null)
          remove.reset()
        }}
      />
    </>
  )
}
