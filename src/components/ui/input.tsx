import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { fieldClass, labelClass } from './classes.ts'

export function Input({ className, ...props }: React.ComponentProps<'input'>) {
  return <input className={cn(fieldClass, className)} {...props} />
}

export function Select({ className, ...props }: React.ComponentProps<'select'>) {
  return <select className={cn(fieldClass, 'pr-8', className)} {...props} />
}

export function Label({ className, ...props }: React.ComponentProps<'label'>) {
  return <label className={cn(labelClass, className)} {...props} />
}
