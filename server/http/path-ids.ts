import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../context.ts'
import { NotFoundError } from '../failures.ts'

// Ids are server-made (24 hex characters) and path words are plain (`latest_event`,
// `user.id`); this looser shape only keeps out what cannot be either. A NUL character
// (from %00) would otherwise reach PostgreSQL and fail there with a 500.
const SEGMENT_SHAPE = /^[A-Za-z0-9_.-]{1,64}$/

/** True for a string that could be an id this server issued. */
export function isWellFormedId(id: string): boolean {
  return SEGMENT_SHAPE.test(id) && !id.includes('.')
}

/** 404 before any query for a path with a segment that cannot name anything (huge, NUL, bad escapes). */
export const rejectMalformedPath: MiddlewareHandler<AppEnv> = async (c, next) => {
  const segments = new URL(c.req.url).pathname.split('/').filter(Boolean)
  for (const raw of segments) {
    let segment: string
    try {
      segment = decodeURIComponent(raw)
    } catch {
      throw new NotFoundError('Resource')
    }
    if (!SEGMENT_SHAPE.test(segment)) throw new NotFoundError('Resource')
  }
  await next()
}
