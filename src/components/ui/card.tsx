import type { VariantProps } from 'class-variance-authority'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { cardVariants } from './classes.ts'

export function Card({ className, tone, ...props }: React.ComponentProps<'section'> & VariantProps<typeof cardVariants>) {
  return <section className={cn(cardVariants({ tone }), className)} {...props} />
}

/** `compact`: the header of a card whose title sits beside small controls (py-2 instead of py-3). */
export function CardHeader({ className, compact = false, ...props }: React.ComponentProps<'div'> & { compact?: boolean }) {
  return (
    <div
      className={cn('flex flex-wrap items-center justify-between gap-2 border-b border-border px-4', compact ? 'py-2' : 'py-3', className)}
      {...props}
    />
  )
}

/** `mono`: a title that is a name or an address (monospace, smaller). */
export function CardTitle({ className, mono = false, ...props }: React.ComponentProps<'h2'> & { mono?: boolean }) {
  return <h2 className={cn('font-semibold text-foreground', mono ? 'font-mono text-xs' : 'text-sm', className)} {...props} />
}

/** By the vertical padding, in Tailwind's spacing steps; 0 for a table that runs to the card's edges. */
const CARD_CONTENT_PADDING = { 0: '', 3: 'px-4 py-3', 4: 'px-4 py-4', 5: 'px-4 py-5', 6: 'px-4 py-6' } as const

export function CardContent({
  className,
  padding = 3,
  ...props
}: React.ComponentProps<'div'> & { padding?: keyof typeof CARD_CONTENT_PADDING }) {
  return <div className={cn(CARD_CONTENT_PADDING[padding], className)} {...props} />
}
