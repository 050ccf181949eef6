import { useQuery } from '@tanstack/react-query'
import type { ServerStorage } from '../../../contract/storage.ts'
import { serverStorageQuery } from '../../api/storage.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { formatBytes } from '../../lib/format-bytes.ts'

/**
 * On the organization's settings page, for its admins: the disk use of this server (shared by
 * every organization on it): the database, the free space Errata keeps and whether it is short
 * (the app's banner says what that means while it is).
 */
export function ServerStorageSection({ organizationId }: { organizationId: string }) {
  const query = useQuery(serverStorageQuery(organizationId))
  return (
    <Card aria-labelledby="server-storage-title">
      <CardHeader>
        <CardTitle id="server-storage-title">This server’s storage</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <p className="text-sm text-muted-foreground">Shared by every organization on this Errata server.</p>
        {query.data ? (
          <ServerStorageFacts storage={query.data} />
        ) : query.isError ? (
          <ErrorState title="Could not measure this server's storage" error={query.error} onRetry={() => void query.refetch()} />
        ) : (
          <LoadingRegion label="Measuring this server's storage" className="flex flex-col gap-2">
            <Skeleton className="h-5 w-full" />
            <Skeleton className="h-5 w-full" />
            <Skeleton className="h-5 w-2/3" />
          </LoadingRegion>
        )}
      </CardContent>
    </Card>
  )
}

function ServerStorageFacts({ storage: { database, disk } }: { storage: ServerStorage }) {
  return (
    <>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
        <dt className="text-muted-foreground">Database</dt>
        <dd className="tabular-nums">
          {formatBytes(database.bytes)} <span className="text-muted-foreground">({database.engine === 'pglite' ? 'embedded' : 'PostgreSQL'})</span>
        </dd>
        {database.data_dir_bytes !== null ? (
          <>
            <dt className="text-muted-foreground">Data directory on disk</dt>
            <dd className="tabular-nums">{formatBytes(database.data_dir_bytes)}</dd>
          </>
        ) : null}
        {disk ? (
          <>
            <dt className="text-muted-foreground">Free disk space</dt>
            <dd className="tabular-nums">
              {formatBytes(disk.free_bytes)} of {formatBytes(disk.total_bytes)}
            </dd>
            <dt className="text-muted-foreground">Kept free</dt>
            <dd>
              <span className="tabular-nums">{formatBytes(disk.min_free_bytes)}</span>
              <span className="text-muted-foreground">: below it, new errors and source map uploads are refused</span>
            </dd>
            <dt className="text-muted-foreground">Status</dt>
            <dd className={disk.low ? 'font-medium text-danger' : 'text-success'}>{disk.low ? 'Low on disk space' : 'Enough free space'}</dd>
          </>
        ) : null}
      </dl>
      {disk ? null : (
        <p className="text-sm text-muted-foreground">
          This server keeps its data in PostgreSQL, whose free disk space Errata cannot see: watch it with PostgreSQL’s own tools.
        </p>
      )}
      <p className="text-xs text-muted-foreground">
        Database measured <RelativeTime value={database.measured_at} />
        {disk ? (
          <>
            , free space <RelativeTime value={disk.checked_at} />
          </>
        ) : null}
        .
      </p>
    </>
  )
}
