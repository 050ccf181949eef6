import { createFileRoute, redirect } from '@tanstack/react-router'
import { currentUserQuery } from '../api/auth.ts'
import { landingAfterSignIn, ORGANIZATION_PICKER } from '../features/auth/sign-in.ts'
import { readToken } from '../lib/token-store.ts'

/**
 * The root: signed in, where sign-in lands (the last project used, else the organization
 * picker); signed out, the login page.
 */
export const Route = createFileRoute('/')({
  beforeLoad: async ({ context }) => {
    const token = readToken()
    if (!token) throw redirect({ to: '/login', search: {} })
    let landing = ORGANIZATION_PICKER
    try {
      const user = await context.queryClient.ensureQueryData(currentUserQuery())
      landing = await landingAfterSignIn(user, token)
    } catch {
      // The user could not be read (a revoked token, the server down): the picker's own page says why.
    }
    throw redirect({ href: landing, replace: true })
  },
})
