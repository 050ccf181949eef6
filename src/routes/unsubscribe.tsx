import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { UnsubscribePage } from '../features/notifications/unsubscribe-page.tsx'

/** Public: the emailed link (`?token=…`) is the credential, and opening it unsubscribes. */
export const Route = createFileRoute('/unsubscribe')({
  validateSearch: z.object({ token: z.catch(z.optional(z.string()), undefined) }),
  component: UnsubscribeRoute,
})

function UnsubscribeRoute() {
  const { token } = Route.useSearch()
  return <UnsubscribePage token={token} />
}
