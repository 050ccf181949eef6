import type { VariantProps } from 'class-variance-authority'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { buttonVariants } from './classes.ts'

export { buttonVariants }

export type ButtonProps = React.ComponentProps<'button'> & VariantProps<typeof buttonVariants>

export function Button({ className, variant, tone, size, align, type = 'button', ...props }: ButtonProps) {
  return <button type={type} className={cn(buttonVariants({ variant, tone, size, align }), className)} {...props} />
}
