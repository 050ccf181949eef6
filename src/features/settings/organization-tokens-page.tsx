import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeft, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { OrganizationToken } from '../../../contract/organization-tokens.ts'
import {
  createOrganizationTokenMutation,
  organizationTokensQuery,
  revokeOrganizationTokenMutation,
} from '../../api/organization-tokens.ts'
import { organizationQuery } from '../../api/organizations.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { formatExactTime } from '../../lib/relative-time.ts'
import { useIsOrganizationAdmin } from '../collaborators/use-is-admin.ts'
import { CreateTokenForm } from './create-token-form.tsx'

/**
 * An organization's API tokens (admins): credentials of the organization for scripts and
 * integrations written for the legacy v1 API. Made with a name and shown once, listed with their
 * last use, revoked. Loaded by the route (organizations.$organizationId_.api-tokens.tsx).
 */
export function OrganizationTokensPage({ organizationId }: { organizationId: string }) {
  const { data: organization } = useSuspenseQuery(organizationQuery(organizationId))
  const isAdmin = useIsOrganizationAdmin(organizationId)

  return (
    <div className="mx-auto flex w-full max-w-3xl min-w-0 flex-col gap-6">
      <Link
        to="/organizations/$organizationId/settings"
        params={{ organizationId }}
        className="inline-flex items-center gap-1 self-start text-sm text-muted-foreground hover:text-foreground"
      >
        <ArrowLeft aria-hidden="true" className="size-4" />
        Organization settings
      </Link>
      <PageHeader
        spacing="none"
        title={`${organization.name}: API tokens`}
        description="Organization API tokens let scripts and integrations written for the legacy v1 API read and change this organization's projects, errors and people, as an admin would. They belong to the organization, not to you; what they change is recorded as made by the admin who created them."
      />
      {isAdmin ? (
        <AdminTokens organizationId={organizationId} />
      ) : (
        <EmptyState title="Only organization admins manage API tokens">Ask an admin of {organization.name} for a token.</EmptyState>
      )}
    </div>
  )
}

function AdminTokens({ organizationId }: { organizationId: string }) {
  const query = useQuery(organizationTokensQuery(organizationId))
  const [revoking, setRevoking] = useState<OrganizationToken | null>(null)
  return (
    <>
      <Card>
        <CardContent padding={4}>
          <CreateTokenForm
            create={createOrganizationTokenMutation(organizationId)}
            nameOf={(token) => token.name}
            fieldLabel="Name"
            placeholder="Deploy pipeline"
            hint={
              <>
                Scripts send it as <code className="font-mono">Authorization: token …</code> (or{' '}
                <code className="font-mono">?auth_token=…</code>) without an <code className="font-mono">X-Version</code> header. It stops
                working if you stop being an admin here.
              </>
            }
          />
        </CardContent>
      </Card>
      {query.isPending ? (
        <LoadingRegion label="Loading the API tokens" className="flex flex-col gap-2">
          <Skeleton className="h-10" />
          <Skeleton className="h-10" />
        </LoadingRegion>
      ) : query.isError ? (
        <ErrorState title="Could not load the API tokens" error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title="No API tokens">Create one above for a script or an integration.</EmptyState>
      ) : (
        <TokensTable tokens={query.data} onRevoke={setRevoking} />
      )}
      {revoking ? (
        <RevokeDialog key={revoking.id} organizationId={organizationId} token={revoking} onClose={() => setRevoking(null)} />
      ) : null}
    </>
  )
}

function TokensTable({ tokens, onRevoke }: { tokens: readonly OrganizationToken[]; onRevoke: (token: OrganizationToken) => void }) {
  return (
    <div className="min-w-0 overflow-x-auto rounded-lg border border-border bg-surface">
      <table className="w-full table-fixed text-sm">
        <caption className="sr-only">The organization's API tokens</caption>
        <thead className="border-b border-border bg-surface-muted text-left text-xs text-muted-foreground">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">Name</th>
            <th scope="col" className="w-36 px-4 py-2 font-medium max-sm:hidden">Created by</th>
            <th scope="col" className="w-36 px-4 py-2 font-medium max-sm:w-24 max-sm:px-2">Last used</th>
            <th scope="col" className="w-28 px-4 py-2 text-right font-medium max-sm:w-14 max-sm:px-2">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {tokens.map((token) => (
            <tr key={token.id}>
              <th scope="row" className="px-4 py-2.5 text-left font-medium">
                <span className="flex flex-wrap items-center gap-1.5">
                  <span className="min-w-0 [overflow-wrap:anywhere]">{token.name}</span>
                  {token.active ? null : (
                    <Badge tone="warning" title="Its creator is no longer an admin of this organization">
                      Not working
                    </Badge>
                  )}
                </span>
              </th>
              <td className="px-4 py-2.5 text-muted-foreground max-sm:hidden">
                <span className="block truncate">{token.created_by.name}</span>
                <RelativeTime value={token.created_at} />
              </td>
              <td className="px-4 py-2.5 text-muted-foreground max-sm:px-2 max-sm:[&_time]:whitespace-normal">
                {token.last_used_at ? <RelativeTime value={token.last_used_at} /> : 'Never'}
              </td>
              <td className="px-4 py-2 text-right max-sm:px-2">
                <Button
                  size="sm"
                  variant="ghost"
                  tone="danger"
                  aria-label={`Revoke API token ${token.name}, created ${formatExactTime(token.created_at)}`}
                  onClick={() => onRevoke(token)}
                >
                  <Trash2 aria-hidden="true" />
                  <span className="max-sm:sr-only">Revoke</span>
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function RevokeDialog({ organizationId, token, onClose }: { organizationId: string; token: OrganizationToken; onClose: () => void }) {
  const mutation = useMutation({ ...revokeOrganizationTokenMutation(organizationId), onSuccess: onClose })
  return (
    <ConfirmDialog
      open
      destructive
      title={`Revoke the API token “${token.name}”?`}
      description="Scripts and integrations still using it will get 401 answers from now on."
      confirmLabel="Revoke"
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate(token.id)}
      onCancel={onClose}
    />
  )
}
