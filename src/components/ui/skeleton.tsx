import type * as React from 'react'
import { cn } from '../../lib/cn.ts'

/** `rounded="lg"`: the placeholder of a card. */
export function Skeleton({ className, rounded = 'md', ...props }: React.ComponentProps<'div'> & { rounded?: 'md' | 'lg' }) {
  return <div aria-hidden="true" className={cn('animate-pulse bg-surface-muted', rounded === 'lg' ? 'rounded-lg' : 'rounded-md', className)} {...props} />
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
