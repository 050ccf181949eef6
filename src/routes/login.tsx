import { createFileRoute, redirect, useRouter } from '@tanstack/react-router'
import { z } from 'zod'
import { userKeys } from '../api/auth.ts'
import { Card, CardContent } from '../components/ui/card.tsx'
import { landingAfterSignIn, ORGANIZATION_PICKER } from '../features/auth/landing-after-sign-in.ts'
import { LoginForm } from '../features/auth/login-form.tsx'
import { readToken } from '../lib/token-store.ts'
import { useDocumentTitle } from '../lib/use-document-title.ts'

/**
 * Only same-site paths, so a crafted ?redirect= cannot send a user elsewhere. Browsers drop tabs
 * and newlines from URLs ("/\t/example.com" is "//example.com"), so any whitespace or control
 * character is refused, and what is left must resolve to this origin.
 */
function safeRedirect(value: string | undefined): string {
  const fallback = ORGANIZATION_PICKER
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback
  const hidden = [...value].some((char) => /\s/.test(char) || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)
  if (hidden) return fallback
  try {
    return new URL(value, window.location.origin).origin === window.location.origin ? value : fallback
  } catch {
    return fallback
  }
}

export const Route = createFileRoute('/login')({
  validateSearch: z.object({ redirect: z.string().optional().catch(undefined) }),
  beforeLoad: ({ search }) => {
    if (readToken()) throw redirect({ href: safeRedirect(search.redirect) })
  },
  component: LoginPage,
})

function LoginPage() {
  const { redirect: target } = Route.useSearch()
  const { queryClient } = Route.useRouteContext()
  const router = useRouter()
  useDocumentTitle('Sign in')
  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-2 text-center">
          <img src="/favicon.svg" alt="" className="size-10" />
          <h1 className="text-xl font-semibold">Sign in to Errata</h1>
        </div>
        <Card>
          <CardContent className="py-5">
            <LoginForm
              onSignedIn={async ({ user }) => {
                queryClient.setQueryData(userKeys.current(), user)
                // The page the user came for, or else the project they last opened.
                router.history.push(target ? safeRedirect(target) : await landingAfterSignIn(queryClient, user.id))
              }}
            />
          </CardContent>
        </Card>
      </div>
    </main>
  )
}
