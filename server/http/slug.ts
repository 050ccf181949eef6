import { randomBytes } from 'node:crypto'

/** A URL-friendly form of a name: lowercase ASCII words joined by hyphens. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
  return slug || 'untitled'
}

/** The slug with a short random suffix, for when the plain slug is taken. */
export function slugWithSuffix(name: string): string {
  return `${slugify(name)}-${randomBytes(3).toString('hex')}`
}

// Suffixes are random, so a clash with one is rare; a few tries suffice.
const SLUG_ATTEMPTS = 8

/**
 * Inserts a row under the name's slug, or under a suffixed one when that is taken. `insert`
 * returns undefined when its slug was taken (INSERT … ON CONFLICT DO NOTHING RETURNING): unlike
 * checking for a free slug and then inserting, requests racing for one name then each get a
 * distinct slug rather than a unique violation.
 */
export async function insertWithFreeSlug<T>(name: string, insert: (slug: string) => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const row = await insert(attempt === 0 ? slugify(name) : slugWithSuffix(name))
    if (row !== undefined) return row
  }
  throw new Error(`no free slug for ${JSON.stringify(name)} after ${SLUG_ATTEMPTS} attempts`)
}
