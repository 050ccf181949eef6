import { z } from 'zod/mini'

/** Every non-2xx JSON answer of Errata: a list of human-readable messages naming the field. */
export const apiErrorSchema = z.object({ errors: z.array(z.string()) })
export type ApiErrorBody = z.infer<typeof apiErrorSchema>

/** Turns zod issues into messages like `name: Too small: expected string to have >=1 characters`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix = ''): string[] {
  return issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.')
    return path ? `${path}: ${issue.message}` : issue.message
  })
}
