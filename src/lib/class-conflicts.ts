// Development-only: which of a component's joined classes set the same CSS property as a later one
// (`h-8` and `h-9`, `inline-flex` and `hidden`). cn() joins classes plainly, so with such a pair
// the stylesheet's order, not the caller, would decide which applies: components take variants or
// props instead of overrides. tailwind-merge knows Tailwind's property groups; it is imported only
// here, and cn() calls this only in development and tests, so the build leaves both out.
import { twMerge } from 'tailwind-merge'

/** The classes of `classes` that a later class of it overrides; empty when none does. */
export function conflictingUtilities(classes: string): string[] {
  const kept = new Set(twMerge(classes).split(' '))
  return classes.split(/\s+/).filter((name) => name !== '' && !kept.has(name))
}
