import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { AuthToken } from '../../../contract/tokens.ts'
import { createTokenMutation, revokeTokenMutation, tokensQuery } from '../../api/tokens.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { formatExactTime } from '../../lib/relative-time.ts'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { clearToken } from '../../lib/token-store.ts'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { CreateTokenForm } from './create-token-form.tsx'
import { SettingsNav } from './settings-nav.tsx'

export function PersonalTokensPage() {
  const query = useQuery(tokensQuery())
  const [revoking, setRevoking] = useState<AuthToken | null>(null)

  return (
    <div className="mx-auto flex w-full max-w-3xl min-w-0 flex-col gap-6">
      <SettingsNav current="/settings/tokens" />
      <PageHeader
        title="Personal tokens"
        description="Tokens let scripts and tools use the Errata API as you. Revoke any you no longer use."
        spacing="none"
      />
      <Card>
        <CardContent padding={4}>
          <CreateTokenForm
            create={createTokenMutation()}
            nameOf={(token) => token.description}
            hint={
              <>
                Scripts send it as <code className="font-mono">Authorization: token …</code> with{' '}
                <code className="font-mono">X-Version: 2</code>.
              </>
            }
          />
        </CardContent>
      </Card>
      {query.isPending ? (
        <LoadingRegion label="Loading your tokens" className="flex flex-col gap-2">
          <Skeleton className="h-10" />
          <Skeleton className="h-10" />
        </LoadingRegion>
      ) : query.isError ? (
        <ErrorState title="Could not load your tokens" error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title="No tokens">Create one above for a script or tool.</EmptyState>
      ) : (
        <TokensTable tokens={query.data} onRevoke={setRevoking} />
      )}
      {revoking ? <RevokeTokenDialog key={revoking.id} token={revoking} onClose={() => setRevoking(null)} /> : null}
    </div>
  )
}

function TokensTable({ tokens, onRevoke }: { tokens: readonly AuthToken[]; onRevoke: (token: AuthToken) => void }) {
  return (
    <div className="min-w-0 overflow-x-auto rounded-lg border border-border bg-surface">
      {/* Fixed layout: a description without spaces wraps in its column instead of widening the table. */}
      <table className="w-full table-fixed text-sm">
        <caption className="sr-only">Your tokens</caption>
        <thead className="border-b border-border bg-surface-muted text-left text-xs text-muted-foreground">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">Description</th>
            {/* Wide enough for "35 minutes ago" on one line; only a phone lets the last-used time wrap. */}
            <th scope="col" className="w-36 px-4 py-2 font-medium max-sm:hidden">Created</th>
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
                  <span className="min-w-0 [overflow-wrap:anywhere]">{token.description}</span>
                  {token.current ? <Badge tone="info">This session</Badge> : null}
                </span>
              </th>
              <td className="px-4 py-2.5 text-muted-foreground max-sm:hidden">
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
                  aria-label={`Revoke token ${token.description}, created ${formatExactTime(token.created_at)}`}
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

function RevokeTokenDialog({ token, onClose }: { token: AuthToken; onClose: () => void }) {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const mutation = useMutation({
    ...revokeTokenMutation(),
    onSuccess: async () => {
      onClose()
      if (token.current) {
        // This browser's own token is gone: the session is over.
        clearToken()
        queryClient.clear()
        await navigate({ to: '/login', search: {} })
      }
    },
  })
  return (
    <ConfirmDialog
      open
      destructive
      title={`Revoke the token “${token.description}”?`}
      description={
        token.current
          ? 'This is the token of this session: revoking it signs you out here at once.'
          : 'Anything still using it will get 401 answers from now on.'
      }
      confirmLabel={token.current ? 'Revoke and sign out' : 'Revoke'}
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate({ id: token.id, current: token.current })}
      onCancel={onClose}
    />
  )
}
