import { useMutation, useQuery } from '@tanstack/react-query'
import { AlertTriangle, Pencil, Plus, Send, Trash2 } from 'lucide-react'
import { useId, useState } from 'react'
import { FORMAT_LABELS, TRIGGER_LABELS, type Webhook } from '../../../contract/webhooks.ts'
import { formatExactTime } from '../../lib/relative-time.ts'
import { deleteWebhookMutation, deliverWebhookMutation, saveWebhookMutation, webhooksQuery } from '../../api/webhooks.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input } from '../../components/ui/input.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { DeliveryLog } from './delivery-log.tsx'
import { WebhookForm } from './webhook-form.tsx'

/**
 * A project's webhooks (docs/webhooks.md): admins add, edit, disable, test and delete them;
 * members see them. The webhook whose delivery log is open is in the URL (`webhook`).
 */
export function WebhooksPage({
  projectId,
  projectName,
  isAdmin,
  nav,
  openWebhookId,
  onOpenWebhook,
}: {
  projectId: string
  projectName: string
  isAdmin: boolean
  nav: React.ReactNode
  openWebhookId: string | undefined
  onOpenWebhook: (webhookId: string | undefined) => void
}) {
  const query = useQuery(webhooksQuery(projectId))
  const [adding, setAdding] = useState(false)
  // The signing secret lives only here: leaving the page forgets it for good.
  const [created, setCreated] = useState<Webhook | null>(null)

  return (
    <div className="mx-auto flex max-w-4xl flex-col gap-4">
      {nav}
      <PageHeader
        spacing="none"
        title={`${projectName}: webhooks`}
        description={
          isAdmin
            ? 'When one of its triggers fires, Errata posts to each target a signed JSON document, or a message to Slack, Discord, Microsoft Teams or Mattermost.'
            : 'When one of its triggers fires, Errata posts to each target a signed JSON document, or a message to Slack, Discord, Microsoft Teams or Mattermost. Only organization admins can change webhooks.'
        }
        actions={
          isAdmin && !adding ? (
            <Button variant="primary" onClick={() => setAdding(true)}>
              <Plus aria-hidden="true" />
              Add webhook
            </Button>
          ) : null
        }
      />
      {adding ? (
        <Card>
          <CardContent>
            <WebhookForm
              projectId={projectId}
              onSaved={(webhook) => {
                setAdding(false)
                setCreated(webhook)
              }}
              onCancel={() => setAdding(false)}
            />
          </CardContent>
        </Card>
      ) : null}
      {created?.secret ? <NewSecret webhook={created} onDone={() => setCreated(null)} /> : null}
      {query.isPending ? (
        <LoadingRegion label="Loading the webhooks" className="flex flex-col gap-3">
          <Skeleton className="h-24" />
          <Skeleton className="h-24" />
        </LoadingRegion>
      ) : query.isError ? (
        <ErrorState title="Could not load the webhooks" error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title="No webhooks yet">
          {isAdmin ? 'Add one to hear about new errors, spikes and releases elsewhere.' : 'An organization admin can add one.'}
        </EmptyState>
      ) : (
        <ul aria-label="Webhooks" className="flex flex-col gap-3">
          {query.data.map((webhook) => (
            <li key={webhook.id}>
              <WebhookCard
                projectId={projectId}
                webhook={webhook}
                isAdmin={isAdmin}
                open={openWebhookId === webhook.id}
                onToggleLog={() => onOpenWebhook(openWebhookId === webhook.id ? undefined : webhook.id)}
              />
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

function NewSecret({ webhook, onDone }: { webhook: Webhook; onDone: () => void }) {
  const id = useId()
  return (
    <div role="region" aria-label="New webhook secret" className="flex flex-col gap-2 rounded-md border border-warning/40 bg-warning-soft/40 p-3">
      <label htmlFor={id} className="text-sm font-medium [overflow-wrap:anywhere]">
        Signing secret of {webhook.url}
      </label>
      <div className="flex items-center gap-2">
        <Input id={id} readOnly value={webhook.secret} size="code" onFocus={(event) => event.currentTarget.select()} />
        <CopyButton value={webhook.secret!} label="Copy the signing secret" />
      </div>
      <p role="status" className="flex items-start gap-1.5 text-xs text-foreground">
        <AlertTriangle aria-hidden="true" className="mt-px size-3.5 shrink-0 text-warning" />
        Copy it now: it will not be shown again. The receiver checks X-Errata-Signature with it.
      </p>
      <div>
        <Button size="sm" onClick={onDone}>
          I have copied it
        </Button>
      </div>
    </div>
  )
}

function WebhookCard({
  projectId,
  webhook,
  isAdmin,
  open,
  onToggleLog,
}: {
  projectId: string
  webhook: Webhook
  isAdmin: boolean
  open: boolean
  onToggleLog: () => void
}) {
  const titleId = useId()
  const [editing, setEditing] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const toggle = useMutation(saveWebhookMutation(projectId))
  const test = useMutation({
    ...deliverWebhookMutation(webhook.id),
    onSuccess: () => {
      if (!open) onToggleLog()
    },
  })
  const remove = useMutation(deleteWebhookMutation(projectId))

  if (editing) {
    return (
      <Card>
        <CardContent>
          <WebhookForm
            projectId={projectId}
            webhook={webhook}
            onSaved={() => setEditing(false)}
            onCancel={() => setEditing(false)}
          />
        </CardContent>
      </Card>
    )
  }
  return (
    <Card aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle id={titleId} mono className="[overflow-wrap:anywhere]">
          {webhook.url}
        </CardTitle>
        <div className="flex shrink-0 flex-wrap gap-1.5">
          <Badge>{FORMAT_LABELS[webhook.format].label}</Badge>
          {webhook.enabled ? <Badge tone="success">Enabled</Badge> : <Badge>Disabled</Badge>}
        </div>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {webhook.disabled_reason === 'failing' ? (
          <p role="alert" className="flex items-start gap-1.5 text-sm text-danger">
            <AlertTriangle aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            Disabled by Errata: every delivery failed for more than 3 days. Fix the target, then enable it again.
          </p>
        ) : webhook.failing_since ? (
          <p className="flex items-start gap-1.5 text-sm text-warning">
            <AlertTriangle aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            Deliveries failing since {formatExactTime(webhook.failing_since)}; after 3 days Errata disables the webhook.
          </p>
        ) : null}
        <ul aria-label="Triggers" className="flex flex-wrap gap-1.5">
          {webhook.triggers.map((trigger) => (
            <li key={trigger}>
              <Badge tone="accent">{TRIGGER_LABELS[trigger]}</Badge>
            </li>
          ))}
        </ul>
        {Object.keys(webhook.filters).length > 0 ? (
          <p className="text-xs text-muted-foreground">
            Filters:{' '}
            {Object.entries(webhook.filters)
              .map(([field, conditions]) => `${field} ${conditions.map((c) => `${c.type} ${c.value}`).join(', ')}`)
              .join('; ')}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2">
          <Button size="sm" aria-expanded={open} onClick={onToggleLog}>
            {open ? 'Hide deliveries' : 'Show deliveries'}
          </Button>
          {isAdmin ? (
            <>
              <Button size="sm" disabled={test.isPending} onClick={() => test.mutate({})}>
                <Send aria-hidden="true" />
                Send test
              </Button>
              <Button size="sm" onClick={() => setEditing(true)}>
                <Pencil aria-hidden="true" />
                Edit
              </Button>
              <Button size="sm" disabled={toggle.isPending} onClick={() => toggle.mutate({ webhookId: webhook.id, input: { enabled: !webhook.enabled } })}>
                {webhook.enabled ? 'Disable' : 'Enable'}
              </Button>
              <Button size="sm" tone="danger" onClick={() => setDeleting(true)}>
                <Trash2 aria-hidden="true" />
                Delete
              </Button>
            </>
          ) : null}
        </div>
        <FormErrors error={toggle.error ?? test.error} />
        {open ? <DeliveryLog webhook={webhook} isAdmin={isAdmin} /> : null}
      </CardContent>
      {deleting ? (
        <ConfirmDialog
          open
          title="Delete this webhook?"
          description={`Errata stops notifying ${webhook.url}, and its delivery log goes with it.`}
          confirmLabel="Delete webhook"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate(webhook.id)}
          onCancel={() => setDeleting(false)}
        />
      ) : null}
    </Card>
  )
}
