import { createFileRoute } from '@tanstack/react-router'
import { ForgotPasswordPage } from '../features/auth/forgot-password-page.tsx'

/** Public: outside _authed, for someone who cannot sign in. */
export const Route = createFileRoute('/forgot-password')({
  component: ForgotPasswordPage,
})
