import { useMutation } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { BellOff, BellRing } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { NOTIFICATION_KIND_LABELS, type Unsubscribe } from '../../../contract/notifications.ts'
import { isApiError } from '../../api/http.ts'
import { subscribeMutation, unsubscribeMutation } from '../../api/notifications.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { useDocumentTitle } from '../../lib/use-document-title.ts'

/** What a link is about: "the daily digest", "“New errors” emails for checkout-api". */
export function describeSubscription({ kind, project_name }: Pick<Unsubscribe, 'kind' | 'project_name'>): string {
  if (kind === 'digest') return 'the daily digest'
  const emails = `“${NOTIFICATION_KIND_LABELS[kind].label}” emails`
  return project_name === null ? emails : `${emails} for ${project_name}`
}

const settingsLink = (
  <Link to="/settings/notifications" className="rounded text-sm font-medium text-accent underline-offset-4 hover:underline">
    Choose what you get
  </Link>
)

/**
 * /unsubscribe?token=…: the link at the foot of a notification email. Opening it unsubscribes (no
 * sign-in: the token is the credential), and the page offers the undo.
 */
export function UnsubscribePage({ token }: { token: string | undefined }) {
  useDocumentTitle('Email notifications')
  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-6 flex flex-col items-center gap-2 text-center">
          <img src="/favicon.svg" alt="" className="size-10" />
          <h1 className="text-xl font-semibold">Email notifications</h1>
        </div>
        <Card>
          <CardContent padding={5}>
            {token ? (
              <UnsubscribeLink token={token} />
            ) : (
              <div role="alert" className="flex flex-col items-start gap-3 text-sm">
                <p>This link has no token: open the link from the email as it is, or choose in your settings what you get (you will be asked to sign in).</p>
                {settingsLink}
              </div>
            )}
          </CardContent>
        </Card>
      </div>
    </main>
  )
}

function UnsubscribeLink({ token }: { token: string }) {
  const unsubscribe = useMutation(unsubscribeMutation(token))
  const subscribe = useMutation(subscribeMutation(token))
  const { mutate: unsubscribeNow } = unsubscribe
  // The link itself is the click: unsubscribe once on arrival. StrictMode runs effects twice on a
  // component that stays mounted; the ref, kept between the two runs, lets only the first send.
  const sent = useRef(false)
  useEffect(() => {
    if (sent.current) return
    sent.current = true
    unsubscribeNow()
  }, [unsubscribeNow])

  // The last thing asked for, and the last answer the server gave.
  const latest = subscribe.submittedAt > unsubscribe.submittedAt ? subscribe : unsubscribe
  const answer = latest.data ?? (latest === subscribe ? unsubscribe.data : subscribe.data)

  if (!answer) {
    if (unsubscribe.isError) {
      return isApiError(unsubscribe.error, 400) ? (
        <div role="alert" className="flex flex-col items-start gap-3 text-sm">
          <p className="font-medium">This unsubscribe link is not valid.</p>
          <p className="text-muted-foreground">
            It may have been cut short or changed: open the link from the email as it is, or choose in your settings what you get
            (you will be asked to sign in).
          </p>
          {settingsLink}
        </div>
      ) : (
        <ErrorState title="Could not unsubscribe" error={unsubscribe.error} onRetry={() => unsubscribe.mutate()} />
      )
    }
    return (
      <LoadingRegion label="Unsubscribing…" className="flex flex-col gap-3">
        <Skeleton className="h-5 w-3/4" />
        <Skeleton className="h-5 w-1/2" />
        <Skeleton className="h-9 w-40" />
      </LoadingRegion>
    )
  }

  const what = describeSubscription(answer)
  // Not `disabled`: a disabled button loses the focus, and the next one (Subscribe again ⇄ Unsubscribe) takes its place.
  const whilePending = { 'aria-disabled': latest.isPending, className: 'aria-disabled:opacity-50' }
  return (
    <div className="flex flex-col gap-4 text-sm">
      <div role="status" className="flex items-start gap-3">
        {answer.subscribed ? (
          <BellRing aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-success" />
        ) : (
          <BellOff aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
        )}
        <p className="min-w-0 [overflow-wrap:anywhere]">
          {answer.subscribed ? 'You will get ' : 'You will no longer get '}
          <strong className="font-semibold">{what}</strong> at <strong className="font-semibold">{answer.email}</strong>
          {answer.subscribed ? ' again.' : '.'}
        </p>
      </div>
      <FormErrors error={latest.error} />
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        {answer.subscribed ? (
          <Button {...whilePending} onClick={() => latest.isPending || unsubscribe.mutate()}>
            <BellOff aria-hidden="true" />
            {latest.isPending ? 'Unsubscribing…' : 'Unsubscribe'}
          </Button>
        ) : (
          <Button variant="primary" {...whilePending} onClick={() => latest.isPending || subscribe.mutate()}>
            <BellRing aria-hidden="true" />
            {latest.isPending ? 'Subscribing…' : 'Subscribe again'}
          </Button>
        )}
        {settingsLink}
      </div>
      <p className="text-xs text-muted-foreground">Your other email choices stay as they are. Choosing them needs a sign-in.</p>
    </div>
  )
}
