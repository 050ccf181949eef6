import { useQuery } from '@tanstack/react-query'
import { Link, useParams } from '@tanstack/react-router'
import { HardDrive } from 'lucide-react'
import { projectQuery } from '../../api/projects.ts'
import { STORAGE_POLL_MS } from '../../api/polling.ts'
import { serverStorageQuery } from '../../api/storage.ts'
import { useIsOrganizationAdmin } from '../collaborators/use-is-admin.ts'
import { formatBytes } from '../../lib/format-bytes.ts'

/**
 * Above every page of an organization its viewer administers, while this server is low on disk
 * space (events and uploads refused): what happens and where to see more. Looked at again every
 * minute; nothing while it loads, fails or space is fine.
 */
export function LowDiskBanner() {
  const params = useParams({ strict: false })
  const project = useQuery({ ...projectQuery(params.projectId ?? ''), enabled: Boolean(params.projectId) })
  const organizationId = params.organizationId ?? project.data?.organization_id
  const isAdmin = useIsOrganizationAdmin(organizationId)
  const { data } = useQuery({
    ...serverStorageQuery(organizationId ?? ''),
    enabled: Boolean(organizationId) && isAdmin,
    refetchInterval: STORAGE_POLL_MS,
  })
  const disk = data?.disk
  if (!organizationId || !isAdmin || !disk?.low) return null
  return (
    <div role="alert" className="mb-4 flex items-start gap-2 rounded-md border border-danger/40 bg-danger-soft/40 px-3 py-2 text-sm">
      <HardDrive aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-danger" />
      <p>
        <span className="font-medium">This server is low on disk space.</span> Only {formatBytes(disk.free_bytes)} of disk space is left,
        less than the {formatBytes(disk.min_free_bytes)} Errata keeps free. New errors and source map uploads are refused until space
        is freed; notifiers send those errors again later.{' '}
        <Link to="/organizations/$organizationId/settings" params={{ organizationId }} className="font-medium text-accent underline underline-offset-2">
          This server’s storage
        </Link>
      </p>
    </div>
  )
}
