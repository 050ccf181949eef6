import { cva, type VariantProps } from 'class-variance-authority'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'

export const badgeVariants = cva(
  'inline-flex items-center gap-1 border px-2 text-xs font-medium',
  {
    variants: {
      /** `wrap`: long text (an attribute list) wraps inside the page instead of running past it. */
      wrap: { false: 'rounded-full whitespace-nowrap', true: 'rounded-lg whitespace-normal [overflow-wrap:anywhere]' },
      /** `dense`: no vertical padding, in a line of small text (an errors list row). */
      dense: { false: 'py-0.5', true: 'py-0' },
      tone: {
        neutral: 'border-border bg-surface-muted text-muted-foreground',
        accent: 'border-transparent bg-accent-soft text-accent',
        danger: 'border-transparent bg-danger-soft text-danger',
        warning: 'border-transparent bg-warning-soft text-warning',
        info: 'border-transparent bg-info-soft text-info',
        success: 'border-transparent bg-success-soft text-success',
      },
    },
    defaultVariants: { tone: 'neutral', wrap: false, dense: false },
  },
)

export function Badge({ className, tone, wrap, dense, ...props }: React.ComponentProps<'span'> & VariantProps<typeof badgeVariants>) {
  return <span className={cn(badgeVariants({ tone, wrap, dense }), className)} {...props} />
}
