// The classes of the basic components, in a module of their own: the sign-in page
// (src/sign-in-main.tsx) renders plain elements with them, to stay small. Each property is set by
// one variant only (cn() joins classes plainly, see src/lib/cn.ts): what callers change is a variant.
import { cva } from 'class-variance-authority'

export const buttonVariants = cva(
  'inline-flex shrink-0 items-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors disabled:pointer-events-none disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0',
  {
    variants: {
      variant: {
        primary: 'bg-accent text-accent-foreground hover:bg-accent/90',
        secondary: 'border border-border bg-surface hover:bg-surface-muted',
        ghost: 'hover:bg-surface-muted',
        link: 'text-accent underline-offset-4 hover:underline',
        /** An irreversible action's confirmation. */
        danger: 'bg-danger text-white hover:bg-danger/90',
        /** A destructive action offered next to others. */
        'danger-outline': 'border border-danger/40 bg-surface text-danger hover:bg-danger-soft',
      },
      /** The text colour of the secondary and ghost buttons. */
      tone: { neutral: '', danger: '', accent: '' },
      size: {
        sm: 'h-7 px-2 text-xs',
        /** sm's text at the height of the toolbars' fields (h-8). */
        toolbar: 'h-8 px-2 text-xs',
        /** A text button inside a line of text. */
        inline: 'h-auto px-0 text-xs',
        md: 'h-9 px-3 text-sm',
        icon: 'size-8 text-sm',
        'icon-sm': 'size-6 text-sm',
        'icon-xs': 'size-5 text-sm',
      },
      align: { center: 'justify-center', start: 'justify-start' },
    },
    compoundVariants: [
      { variant: ['secondary', 'ghost'], tone: 'neutral', class: 'text-foreground' },
      { variant: ['secondary', 'ghost'], tone: 'danger', class: 'text-danger' },
      { variant: ['secondary', 'ghost'], tone: 'accent', class: 'text-accent' },
    ],
    defaultVariants: { variant: 'secondary', tone: 'neutral', size: 'md', align: 'center' },
  },
)

/** A text field's classes (Input, Select). */
export const fieldVariants = cva(
  'min-w-0 rounded-md border border-border bg-surface px-3 text-foreground placeholder:text-muted-foreground aria-invalid:border-danger disabled:opacity-50',
  {
    variants: {
      size: {
        md: 'h-9 text-sm',
        /** The toolbars' fields. */
        sm: 'h-8 text-xs',
        /** A token, key or address to copy. */
        code: 'h-9 font-mono text-xs',
      },
      /** Full width, or the width the caller's class sets. */
      fullWidth: { true: 'w-full', false: '' },
    },
    defaultVariants: { size: 'md', fullWidth: true },
  },
)

/** A text field's classes at their defaults. */
export const fieldClass = fieldVariants()

/** A field label's classes; `quiet`: the small muted label of a toolbar's field. */
export const labelVariants = cva('font-medium', {
  variants: { quiet: { false: 'text-sm text-foreground', true: 'text-xs text-muted-foreground' } },
  defaultVariants: { quiet: false },
})

/** A field label's classes at their defaults. */
export const labelClass = labelVariants()

/** A card's classes; `tone="danger"`: a card of destructive actions. */
export const cardVariants = cva('rounded-lg border bg-surface shadow-xs', {
  variants: { tone: { neutral: 'border-border', danger: 'border-danger/40' } },
  defaultVariants: { tone: 'neutral' },
})

/** A card's classes at their defaults. */
export const cardClass = cardVariants()
