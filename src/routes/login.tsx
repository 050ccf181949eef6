import { createFileRoute, redirect, useRouter } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { userKeys } from '../api/auth.ts'
import { destinationAfterSignIn, safeRedirect } from '../features/auth/sign-in.ts'
import { SignInPage } from '../features/auth/sign-in-page.tsx'
import { readToken } from '../lib/token-store.ts'

/**
 * Sign-in inside the running app (after signing out, or when the server refuses the token): a
 * page load of /login gets the sign-in entry instead (login.html), which shows the same page
 * without loading the app.
 */
export const Route = createFileRoute('/login')({
  validateSearch: z.object({ redirect: z.catch(z.optional(z.string()), undefined) }),
  beforeLoad: ({ search }) => {
    if (readToken()) throw redirect({ href: safeRedirect(search.redirect) })
  },
  component: LoginPage,
})

function LoginPage() {
  const { redirect: target } = Route.useSearch()
  const { queryClient } = Route.useRouteContext()
  const router = useRouter()
  return (
    <SignInPage
      onSignedIn={async (response) => {
        queryClient.setQueryData(userKeys.current(), response.user)
        // The page the user came for, or else the project they last opened.
        router.history.push(await destinationAfterSignIn(target, response))
      }}
    />
  )
}
