// The classes of the basic components, in a module of their own (no tailwind-merge): the sign-in
// page (src/sign-in-main.tsx) renders plain elements with them, to stay small.
import { cva } from 'class-variance-authority'

export const buttonVariants = cva(
  'inline-flex shrink-0 items-center justify-center gap-1.5 rounded-md text-sm font-medium whitespace-nowrap transition-colors disabled:pointer-events-none disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0',
  {
    variants: {
      variant: {
        primary: 'bg-accent text-accent-foreground hover:bg-accent/90',
        secondary: 'border border-border bg-surface text-foreground hover:bg-surface-muted',
        ghost: 'text-foreground hover:bg-surface-muted',
        link: 'text-accent underline-offset-4 hover:underline',
      },
      size: {
        sm: 'h-7 px-2 text-xs',
        md: 'h-9 px-3',
        icon: 'size-8',
      },
    },
    defaultVariants: { variant: 'secondary', size: 'md' },
  },
)

/** A text field's classes (Input, Select). */
export const fieldClass =
  'h-9 w-full min-w-0 rounded-md border border-border bg-surface px-3 text-sm text-foreground placeholder:text-muted-foreground aria-invalid:border-danger disabled:opacity-50'

/** A field label's classes. */
export const labelClass = 'text-sm font-medium text-foreground'

/** A card's classes. */
export const cardClass = 'rounded-lg border border-border bg-surface shadow-xs'
