// What every legacy v1 route shares: it answers v1 requests only (a v2 request of the same path
// goes on to the v2 route), marks the answer deprecated with a link to its v2 successor, reads
// its parameters from a JSON body or the query string, and pages by offset.
import type { Context, Handler } from 'hono'
import type { LegacyPageQuery } from '../../contract/legacy.ts'
import type { AppEnv, AuthUser } from '../context.ts'
import { ForbiddenError } from '../failures.ts'
import { requestUrlWith, urlBuilder } from '../http/urls.ts'
import { readJson } from '../http/validate.ts'

const LEGACY_HANDLERS = new WeakSet<object>()

/** Whether a route's handler is a legacy one (the authorization matrix tells the two APIs' routes apart by it). */
export const isLegacyHandler = (handler: unknown): boolean => typeof handler === 'function' && LEGACY_HANDLERS.has(handler)

/**
 * A legacy route's handler: runs for v1 requests (server/http/api-version.ts lets v1 reach
 * only the legacy routes and the Events API), and hands v2 requests on to the route after it.
 */
export function legacyRoute<E extends AppEnv, P extends string>(handler: (c: Context<E, P>) => Promise<Response>): Handler<E, P> {
  const route: Handler<E, P> = async (c, next) => {
    if (c.var.apiVersion !== '1') return next()
    c.header('Deprecation', 'true')
    return handler(c)
  }
  LEGACY_HANDLERS.add(route)
  return route
}

/** `Link` with the next page (when there is one) and the v2 equivalent (`successor-version`), absolute. */
export function setLegacyLinks(c: Context<AppEnv>, successorPath: string, next?: string | null): void {
  const links = [`<${urlBuilder(c).api(successorPath)}>; rel="successor-version"`]
  if (next) links.unshift(`<${next}>; rel="next"`)
  c.header('Link', links.join(', '))
}

/**
 * One page of a whole list (the legacy lists are of an organization's projects or people, read
 * whole by the v2 services): the rows at `offset`, and the next page's address with the other
 * paging parameters, or null on the last page.
 */
export function legacyPage<T>(c: Context<AppEnv>, rows: readonly T[], query: LegacyPageQuery): { page: T[]; next: string | null } {
  const page = rows.slice(query.offset, query.offset + query.per_page)
  const more = query.offset + query.per_page < rows.length
  return { page, next: more ? nextOffsetUrl(c, query) : null }
}

/** The address of the page after this one: `offset` moved on, the other paging parameters written out. */
export function nextOffsetUrl(c: Context<AppEnv>, query: LegacyPageQuery): string {
  return requestUrlWith(c, {
    offset: String(query.offset + query.per_page),
    per_page: String(query.per_page),
    sort: query.sort,
    direction: query.direction,
  })
}

/** Rows sorted by creation time in the asked direction, ties by id (the v2 services list oldest first). */
export function byCreatedAt<T extends { id: string; created_at: string }>(rows: readonly T[], direction: 'asc' | 'desc'): T[] {
  const sign = direction === 'asc' ? 1 : -1
  return [...rows].sort((a, b) => sign * (a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)))
}

/**
 * A legacy request's parameters: the JSON body's fields over the query string's (the old API
 * took either; `true`/`false` and comma lists, or `name[]` repeated, read from the query string).
 */
export async function legacyInput(c: Context<AppEnv>, { booleans = [], lists = [] }: { booleans?: string[]; lists?: string[] }): Promise<Record<string, unknown>> {
  const params = new URL(c.req.url).searchParams
  const fromQuery: Record<string, unknown> = {}
  for (const [name, value] of params) {
    if (name === 'auth_token' || name.endsWith('[]')) continue
    fromQuery[name] = booleans.includes(name) && (value === 'true' || value === 'false') ? value === 'true' : value
  }
  for (const name of lists) {
    const values = [...params.getAll(name), ...params.getAll(`${name}[]`)].flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)
    if (params.has(name) || params.has(`${name}[]`)) fromQuery[name] = values
  }
  const body = (await readJson(c.req.raw)) as Record<string, unknown>
  return { ...fromQuery, ...body }
}

/** GET /user answers only to user credentials (the spec's section 5, rule 4). */
export function requireUserCredentials(c: Context<AppEnv>): AuthUser {
  const principal = c.var.principal
  if (principal.kind !== 'user') throw new ForbiddenError('GET /user answers to user credentials only; this request carries an organization API token')
  return principal.user
}

/** A path parameter of a legacy route (the router matched it, so it is there). */
export function pathParam(c: Context<AppEnv>, name: string): string {
  const value = c.req.param(name)
  if (value === undefined) throw new Error(`${c.req.path} has no :${name}`)
  return value
}
