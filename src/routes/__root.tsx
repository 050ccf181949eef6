import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, Link, Outlet, useLocation } from '@tanstack/react-router'
import { Announcer } from '../components/ui/announcer.tsx'
import { buttonVariants } from '../components/ui/button.tsx'
import { NotFoundState } from '../components/ui/states.tsx'
import { Toaster } from '../components/ui/toaster.tsx'

export interface RouterContext {
  queryClient: QueryClient
}

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  notFoundComponent: PageNotFound,
})

function RootLayout() {
  return (
    <>
      <Outlet />
      <Toaster />
      <Announcer />
    </>
  )
}

function PageNotFound() {
  const location = useLocation()
  return (
    <main className="px-4">
      <NotFoundState
        title="Page not found"
        action={
          <Link to="/" className={buttonVariants()}>
            Go to Errata
          </Link>
        }
      >
        There is no page at <code className="font-mono break-all">{location.pathname}</code>.
      </NotFoundState>
    </main>
  )
}
