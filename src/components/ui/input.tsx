import type { VariantProps } from 'class-variance-authority'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { fieldVariants, labelVariants } from './classes.ts'

type FieldProps = VariantProps<typeof fieldVariants>

export function Input({ className, size, fullWidth, ...props }: Omit<React.ComponentProps<'input'>, 'size'> & FieldProps) {
  return <input className={cn(fieldVariants({ size, fullWidth }), className)} {...props} />
}

export function Select({ className, size, fullWidth, ...props }: Omit<React.ComponentProps<'select'>, 'size'> & FieldProps) {
  return <select className={cn(fieldVariants({ size, fullWidth }), 'pr-8', className)} {...props} />
}

export function Label({ className, quiet, ...props }: React.ComponentProps<'label'> & VariantProps<typeof labelVariants>) {
  return <label className={cn(labelVariants({ quiet }), className)} {...props} />
}
