import { Link } from '@tanstack/react-router'
import { LogIn } from 'lucide-react'
import type * as React from 'react'
import { buttonVariants } from '../../components/ui/button.tsx'

/** Pages seen signed out (such as "Page not found"): the same header bar, with the way to sign in. */
export function PublicShell({ children }: { children: React.ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="sticky top-0 z-20 border-b border-border bg-surface/95 backdrop-blur">
        <div className="mx-auto flex h-12 max-w-7xl items-center justify-between gap-3 px-4">
          <Link to="/" className="flex shrink-0 items-center gap-2 rounded font-semibold">
            <img src="/favicon.svg" alt="" className="size-6" />
            Errata
          </Link>
          <Link to="/login" search={{}} className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
            <LogIn aria-hidden="true" />
            Sign in
          </Link>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 outline-none">
        {children}
      </main>
    </div>
  )
}
