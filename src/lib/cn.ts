import { clsx, type ClassValue } from 'clsx'
import { conflictingUtilities } from './class-conflicts.ts'

/**
 * Joins class names. No class may override another that sets the same property (the stylesheet's
 * order would decide, not the call): a component that callers need to change takes a variant or a
 * prop. Development and the unit tests check it; the build drops the check and its library.
 */
export function cn(...inputs: ClassValue[]): string {
  const classes = clsx(inputs)
  if (import.meta.env.DEV) {
    const overridden = conflictingUtilities(classes)
    if (overridden.length > 0) throw new Error(`cn(): ${overridden.join(' ')} overridden by later classes in "${classes}"`)
  }
  return classes
}
