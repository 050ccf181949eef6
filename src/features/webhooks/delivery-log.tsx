import { useMutation, useQuery } from '@tanstack/react-query'
import { RotateCw } from 'lucide-react'
import { TRIGGER_LABELS, type Webhook, type WebhookDelivery } from '../../../contract/webhooks.ts'
import { deliveriesQuery, deliverWebhookMutation } from '../../api/webhooks.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'

const STATE_TONES = { pending: 'info', delivered: 'success', failed: 'danger' } as const

/**
 * A webhook's newest deliveries: each named by its trigger as the webhook's form names it (a test
 * marked "Test"), with its attempts and the receiver's answers, the document sent and, for
 * admins, a redeliver button.
 */
export function DeliveryLog({ webhook, isAdmin }: { webhook: Webhook; isAdmin: boolean }) {
  const query = useQuery(deliveriesQuery(webhook.id))
  if (query.isPending) {
    return (
      <LoadingRegion label="Loading the deliveries">
        <Skeleton className="h-10" />
        <Skeleton className="h-10" />
      </LoadingRegion>
    )
  }
  if (query.isError) return <ErrorState title="Could not load the deliveries" error={query.error} onRetry={() => void query.refetch()} />
  if (query.data.length === 0) {
    return <EmptyState title="No deliveries yet">Notifications appear here as they are sent. Send a test to try the target.</EmptyState>
  }
  return (
    <ol aria-label={`Deliveries of ${webhook.url}`} className="flex flex-col divide-y divide-border rounded-md border border-border">
      {query.data.map((delivery) => (
        <DeliveryItem key={delivery.id} webhook={webhook} delivery={delivery} isAdmin={isAdmin} />
      ))}
    </ol>
  )
}

function DeliveryItem({ webhook, delivery, isAdmin }: { webhook: Webhook; delivery: WebhookDelivery; isAdmin: boolean }) {
  const mutation = useMutation(deliverWebhookMutation(webhook.id))
  const trigger = TRIGGER_LABELS[delivery.trigger]
  return (
    <li className="flex flex-col gap-2 px-3 py-2 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={STATE_TONES[delivery.state]}>{delivery.state}</Badge>
        {delivery.test ? <Badge tone="neutral">Test</Badge> : null}
        <span className="font-medium">{trigger}</span>
        <span className="text-muted-foreground">
          <RelativeTime value={delivery.created_at} />
        </span>
        <span className="text-muted-foreground">
          {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
          {delivery.last_status !== null ? `, last HTTP ${delivery.last_status}` : ''}
        </span>
        {isAdmin && delivery.state !== 'pending' ? (
          <Button size="sm" className="ml-auto" disabled={mutation.isPending} onClick={() => mutation.mutate({ deliveryId: delivery.id })} aria-label={`Redeliver ${delivery.test ? 'test ' : ''}delivery ${delivery.id} (${trigger})`}>
            <RotateCw aria-hidden="true" />
            Redeliver
          </Button>
        ) : null}
      </div>
      {delivery.last_error ? <p className="text-xs break-words text-danger">{delivery.last_error}</p> : null}
      <FormErrors error={mutation.error} />
      <details className="text-xs">
        <summary className="cursor-pointer text-muted-foreground">Attempts and payload</summary>
        <div className="mt-2 flex flex-col gap-2">
          <p className="font-mono break-all">X-Errata-Delivery: {delivery.id}</p>
          {delivery.attempt_log.length > 0 ? (
            <table className="w-full text-left">
              <caption className="sr-only">Attempts</caption>
              <thead>
                <tr className="text-muted-foreground">
                  <th scope="col" className="font-medium">When</th>
                  <th scope="col" className="font-medium">Status</th>
                  <th scope="col" className="font-medium">Took</th>
                  <th scope="col" className="font-medium">Answer</th>
                </tr>
              </thead>
              <tbody>
                {delivery.attempt_log.map((attempt, index) => (
                  <tr key={index} className="align-top">
                    <td className="pr-2">
                      <RelativeTime value={attempt.attempted_at} />
                    </td>
                    <td className="pr-2">{attempt.status ?? 'none'}</td>
                    <td className="pr-2">{attempt.duration_ms} ms</td>
                    <td className="min-w-0">
                      {attempt.error ? <p className="break-words text-danger">{attempt.error}</p> : null}
                      {/* The receiver's text as it answered (the server keeps its start): never markup. */}
                      {attempt.response_excerpt ? (
                        <pre
                          tabIndex={0}
                          aria-label="Receiver’s answer"
                          className="max-h-40 overflow-auto rounded bg-surface-muted p-1.5 font-mono whitespace-pre-wrap break-all focus-visible:outline-2 focus-visible:outline-accent"
                        >
                          {attempt.response_excerpt}
                        </pre>
                      ) : attempt.error ? null : (
                        <span className="text-muted-foreground">No answer body</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="text-muted-foreground">Not attempted yet.</p>
          )}
          {delivery.payload !== null ? (
            <pre tabIndex={0} className="max-h-80 overflow-auto rounded bg-surface-muted p-2 font-mono whitespace-pre-wrap break-all focus-visible:outline-2 focus-visible:outline-accent" aria-label="Payload sent">
              {JSON.stringify(delivery.payload, null, 2)}
            </pre>
          ) : null}
        </div>
      </details>
    </li>
  )
}
