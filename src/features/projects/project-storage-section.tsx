import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { RotateCw } from 'lucide-react'
import type { ProjectStorage } from '../../../contract/storage.ts'
import { projectStorageQuery } from '../../api/storage.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { formatBytes } from '../../lib/format-bytes.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'

/** The parts of a project's disk use, as people name them. */
const PARTS: ReadonlyArray<{ key: 'events' | 'payloads' | 'source_maps' | 'privacy_exports'; label: string; count: (n: number) => string }> = [
  { key: 'events', label: 'Events', count: (n) => formatCountOf(n, 'event') },
  { key: 'payloads', label: 'Event details as received', count: (n) => formatCountOf(n, 'payload') },
  { key: 'source_maps', label: 'Source maps', count: (n) => formatCountOf(n, 'upload') },
  { key: 'privacy_exports', label: 'Privacy exports kept for download', count: (n) => formatCountOf(n, 'file') },
]

/**
 * On the project's settings page, for admins: how much disk the project's data takes (measured
 * when the page opens, or again on request).
 */
export function ProjectStorageSection({ projectId, organizationId }: { projectId: string; organizationId: string }) {
  const query = useQuery(projectStorageQuery(projectId))
  return (
    <Card aria-labelledby="project-storage-title">
      <CardHeader compact>
        <CardTitle id="project-storage-title">Storage</CardTitle>
        {query.data ? (
          <Button size="sm" variant="ghost" onClick={() => void query.refetch()} disabled={query.isFetching}>
            <RotateCw aria-hidden="true" />
            {query.isFetching ? 'Measuring…' : 'Measure again'}
          </Button>
        ) : null}
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {query.data ? (
          <StorageTable storage={query.data} organizationId={organizationId} />
        ) : query.isError ? (
          <ErrorState title="Could not measure the project's storage" error={query.error} onRetry={() => void query.refetch()} />
        ) : (
          <LoadingRegion label="Measuring the project's storage" className="flex flex-col gap-2">
            <Skeleton className="h-5 w-full" />
            <Skeleton className="h-5 w-full" />
            <Skeleton className="h-5 w-2/3" />
          </LoadingRegion>
        )}
      </CardContent>
    </Card>
  )
}

function StorageTable({ storage, organizationId }: { storage: ProjectStorage; organizationId: string }) {
  const estimated = storage.sampled_events < storage.events.count
  return (
    <>
      <table className="w-full text-sm">
        <caption className="sr-only">Disk space taken by this project's data</caption>
        <thead className="sr-only">
          <tr>
            <th scope="col">Data</th>
            <th scope="col">How many</th>
            <th scope="col">Size</th>
          </tr>
        </thead>
        <tbody>
          {PARTS.map((part) => (
            <tr key={part.key} className="border-b border-border">
              <th scope="row" className="py-1.5 pr-3 text-left font-normal">
                {part.label}
              </th>
              <td className="py-1.5 pr-3 text-right whitespace-nowrap text-muted-foreground tabular-nums">{part.count(storage[part.key].count)}</td>
              <td className="py-1.5 text-right whitespace-nowrap tabular-nums">{formatBytes(storage[part.key].bytes)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" className="pt-2 pr-3 text-left font-semibold">
              Total
            </th>
            <td />
            <td className="pt-2 text-right font-semibold whitespace-nowrap tabular-nums">{formatBytes(storage.total_bytes)}</td>
          </tr>
        </tfoot>
      </table>
      <p className="text-xs text-muted-foreground">
        Measured <RelativeTime value={storage.measured_at} />.{' '}
        {estimated
          ? `Events and their details are estimated from the latest ${formatCount(storage.sampled_events)} events. `
          : null}
        Indexes and summaries are not counted here: the whole database and the free disk space are in the{' '}
        <Link to="/organizations/$organizationId/settings" params={{ organizationId }} className="text-accent underline underline-offset-2">
          organization settings
        </Link>
        .
      </p>
    </>
  )
}
