import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { ResetPasswordPage } from '../features/auth/reset-password-page.tsx'

/** Public: the emailed link (`?token=…`) is the credential. */
export const Route = createFileRoute('/reset-password')({
  validateSearch: z.object({ token: z.catch(z.optional(z.string()), undefined) }),
  component: ResetPasswordRoute,
})

function ResetPasswordRoute() {
  const { token } = Route.useSearch()
  return <ResetPasswordPage token={token} />
}
