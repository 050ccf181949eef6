import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { createRouter, type RouterHistory } from '@tanstack/react-router'
import { isApiError, setUnauthorizedHandler } from './api/http.ts'
import { PageSkeleton, RouteError } from './features/layout/route-states.tsx'
import { parseSearch, stringifySearch } from './lib/search-params.ts'
import { routeTree } from './routeTree.gen.ts'

export function createAppRouter({ queryClient, history }: { queryClient: QueryClient; history?: RouterHistory }) {
  const router = createRouter({
    routeTree,
    history,
    context: { queryClient },
    // Repeated filter parameters (?f=…&f=…) instead of JSON arrays: see lib/search-params.ts.
    parseSearch,
    stringifySearch,
    // Query owns freshness; the router only coordinates.
    defaultPreload: 'intent',
    defaultPreloadStaleTime: 0,
    // Cached pages render at once; a skeleton appears only when a load is noticeably slow.
    defaultPendingMs: 150,
    defaultPendingMinMs: 300,
    defaultPendingComponent: () => <PageSkeleton label="Loading" />,
    // Routes without their own error page (sign-in, settings) still get ours, with its Retry.
    defaultErrorComponent: RouteError,
    scrollRestoration: true,
    Wrap: ({ children }) => <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>,
  })

  // The server rejected our token: drop cached data and sign in again, coming back here after.
  setUnauthorizedHandler(() => {
    queryClient.clear()
    const current = router.state.location
    // The sign-in page, and an invitation page (which asks who is signed in only to warn), stay put.
    if (current.pathname === '/login' || current.pathname.startsWith('/invitations/')) return
    void router.navigate({ to: '/login', search: { redirect: current.href } })
  })

  // Data on screen that the server now answers 404 for (deleted, or the user's access was
  // narrowed or revoked) must not stay on screen: drop it and run the loaders again, which turn
  // the 404 into the page's "not found".
  queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'error') return
    if (event.query.state.data === undefined || !isApiError(event.action.error, 404)) return
    queryClient.removeQueries({ queryKey: event.query.queryKey, exact: true })
    void router.invalidate()
  })

  return router
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>
  }
}
