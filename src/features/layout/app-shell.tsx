import { Outlet } from '@tanstack/react-router'
import type * as React from 'react'
import { AppHeader } from './app-header.tsx'
import { LowDiskBanner } from './low-disk-banner.tsx'
import { NavigationProgress } from './navigation-progress.tsx'
import { useFocusRescue } from './use-focus-rescue.ts'

/**
 * Signed-in pages: the header with breadcrumbs, then the page in the main landmark (the route's
 * child, or `children` for a page outside the signed-in routes such as "Page not found"), below
 * the low disk space banner while it shows.
 */
export function AppShell({ children }: { children?: React.ReactNode }) {
  useFocusRescue('main')
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only z-50 rounded bg-surface px-3 py-2 focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Skip to content
      </a>
      <NavigationProgress />
      <AppHeader />
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 outline-none">
        <LowDiskBanner />
        {children ?? <Outlet />}
      </main>
    </div>
  )
}
