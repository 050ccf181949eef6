import { createFileRoute, redirect } from '@tanstack/react-router'
import { currentUserQuery } from '../api/auth.ts'
import { AppShell } from '../features/layout/app-shell.tsx'
import { readToken } from '../lib/token-store.ts'

/** Every signed-in page: no token means the login page, coming back here afterwards. */
export const Route = createFileRoute('/_authed')({
  beforeLoad: ({ location }) => {
    if (!readToken()) throw redirect({ to: '/login', search: { redirect: location.href } })
  },
  loader: ({ context }) => {
    // The header's user menu; not worth blocking a page for.
    void context.queryClient.prefetchQuery(currentUserQuery())
  },
  component: AppShell,
})
