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
