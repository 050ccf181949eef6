import { describe, expect, it } from 'vitest'
import { buttonVariants, fieldVariants } from '../components/ui/classes.ts'
import { cn } from './cn.ts'

describe('cn', () => {
  it('joins classes plainly, leaving out the false ones', () => {
    const hidden = false
    expect(cn('flex gap-2', hidden && 'hidden', undefined, ['text-sm', { 'font-medium': true, underline: false }])).toBe(
      'flex gap-2 text-sm font-medium',
    )
  })

  it('refuses a class that a later one overrides, which the stylesheet’s order would decide', () => {
    expect(() => cn(buttonVariants({ size: 'sm' }), 'h-8')).toThrow(/h-7 overridden/)
    expect(() => cn('inline-flex items-center', 'hidden lg:flex')).toThrow(/inline-flex overridden/)
    expect(() => cn(fieldVariants(), 'w-24')).toThrow(/w-full overridden/)
  })

  it('accepts classes that only look alike: other properties, other variants', () => {
    expect(cn('text-xs text-muted-foreground', 'hover:text-foreground')).toBe('text-xs text-muted-foreground hover:text-foreground')
    expect(cn('hidden', 'md:inline-flex', 'border-b border-b-border border-l-2 border-l-accent')).toBe(
      'hidden md:inline-flex border-b border-b-border border-l-2 border-l-accent',
    )
  })

  it('has variants whose classes do not override each other', () => {
    for (const variant of ['primary', 'secondary', 'ghost', 'link', 'danger', 'danger-outline'] as const)
      for (const size of ['sm', 'toolbar', 'inline', 'md', 'icon', 'icon-sm', 'icon-xs'] as const)
        for (const tone of ['neutral', 'danger', 'accent'] as const)
          for (const align of ['center', 'start'] as const) expect(() => cn(buttonVariants({ variant, size, tone, align }))).not.toThrow()
    for (const size of ['md', 'sm', 'code'] as const)
      for (const fullWidth of [true, false]) expect(() => cn(fieldVariants({ size, fullWidth }), 'pr-8')).not.toThrow()
  })
})
