import type * as React from 'react'
import { cn } from '../../lib/cn.ts'

export function Skeleton({ className, ...props }: React.ComponentProps<'div'>) {
  return <div aria-hidden="true" className={cn('animate-pulse rounded-md bg-surface-muted', className)} {...props} />
}

/** A labelled loading region: screen readers hear what is loading, sighted users see the shape of it. */
export function LoadingRegion({ label, children, className }: { label: string; children: React.ReactNode; className?: string }) {
  return (
    <div role="status" aria-live="polite" className={className}>
      <span className="sr-only">{label}</span>
      {children}
    </div>
  )
}
