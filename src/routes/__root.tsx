import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, Outlet } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'
import { Announcer } from '../components/ui/announcer.tsx'
import { Toaster } from '../components/ui/toaster.tsx'
import { loadChunk } from '../lib/route-chunks.ts'

export interface RouterContext {
  queryClient: QueryClient
}

// The not-found page wears the app's header: loaded when needed, so the header's code stays out of
// the sign-in page's first load (the root route's code is in every page's).
const PageNotFound = lazy(() =>
  loadChunk(() => import('../features/layout/page-not-found.tsx')).then((module) => ({ default: module.PageNotFound })),
)

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  notFoundComponent: () => (
    <Suspense fallback={null}>
      <PageNotFound />
    </Suspense>
  ),
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
