import type { Context } from 'hono'
import type { AppEnv } from '../context.ts'

/**
 * The public origin used in `url` / `html_url` fields: ERRATA_PUBLIC_URL when set,
 * else the origin the request came to (right for a single host).
 */
export function publicOrigin(c: Context<AppEnv>): string {
  return c.var.deps.config.publicUrl ?? new URL(c.req.url).origin
}

export interface UrlBuilder {
  /** Address of a Data Access API path, e.g. api('/projects/1'). */
  api(path: string): string
  /** Address of a dashboard page, e.g. web('/projects/1/errors'). */
  web(path: string): string
}

export function urlBuilder(c: Context<AppEnv>): UrlBuilder {
  const origin = publicOrigin(c)
  return { api: (path) => `${origin}/api${path}`, web: (path) => `${origin}${path}` }
}

/**
 * The absolute address of the next page: the request's own URL (so it works on the
 * API port too) with `cursor` replaced and every other parameter kept.
 */
export function nextPageUrl(c: Context<AppEnv>, cursor: string): string {
  const url = new URL(c.req.url)
  if (c.var.deps.config.publicUrl && !c.var.deps.config.apiPort) {
    const base = new URL(c.var.deps.config.publicUrl)
    url.protocol = base.protocol
    url.host = base.host
  }
  url.searchParams.set('cursor', cursor)
  return url.toString()
}

/** Sets `Link: <…>; rel="next"` (when there is a next page) and `X-Total-Count`. */
export function setPageHeaders(c: Context<AppEnv>, page: { nextCursor: string | null; totalCount: number }): void {
  if (page.nextCursor) c.header('Link', `<${nextPageUrl(c, page.nextCursor)}>; rel="next"`)
  c.header('X-Total-Count', String(page.totalCount))
}
