import type { Context } from 'hono'
import type { AppEnv } from '../context.ts'

export interface UrlBuilder {
  /** Address of a Data Access API path, e.g. api('/projects/1'). */
  api(path: string): string
  /** Address of a dashboard page, e.g. web('/projects/1/errors'). */
  web(path: string): string
}

/** True when the request came to the API_PORT listener, which serves the API at its root. */
const onApiPort = (c: Context<AppEnv>) => c.var.apiMount === ''

/**
 * Addresses for `url` / `html_url` fields. ERRATA_PUBLIC_URL wins when set; otherwise the
 * origin the request came to. A request on API_PORT gets API addresses on that port
 * (at its root) and dashboard addresses on the main PORT, which is where the dashboard is.
 */
export function urlBuilder(c: Context<AppEnv>): UrlBuilder {
  const { publicUrl, port } = c.var.deps.config
  const requestUrl = new URL(c.req.url)
  if (publicUrl) return { api: (path) => `${publicUrl}/api${path}`, web: (path) => `${publicUrl}${path}` }
  if (!onApiPort(c)) return { api: (path) => `${requestUrl.origin}/api${path}`, web: (path) => `${requestUrl.origin}${path}` }
  const dashboard = new URL(requestUrl.origin)
  dashboard.port = String(port)
  return { api: (path) => `${requestUrl.origin}${path}`, web: (path) => `${dashboard.origin}${path}` }
}

/**
 * The absolute address of the next page: the request's own path and parameters with
 * `cursor` replaced (and `after_event` dropped), on ERRATA_PUBLIC_URL when set (behind a proxy), else on the origin
 * the request came to (so it also works on API_PORT).
 */
export function nextPageUrl(c: Context<AppEnv>, cursor: string): string {
  // The cursor now holds the position an after_event started from.
  return requestUrlWith(c, { cursor }, ['after_event'])
}

/**
 * The request's own address with `set` parameters replaced and `drop` ones removed, on
 * ERRATA_PUBLIC_URL when set (not on API_PORT), else on the origin the request came to.
 */
export function requestUrlWith(c: Context<AppEnv>, set: Record<string, string>, drop: readonly string[] = []): string {
  const url = new URL(c.req.url)
  for (const [name, value] of Object.entries(set)) url.searchParams.set(name, value)
  for (const name of drop) url.searchParams.delete(name)
  const { publicUrl } = c.var.deps.config
  return publicUrl && !onApiPort(c) ? `${publicUrl}${url.pathname}${url.search}` : url.toString()
}

/** Sets `Link: <…>; rel="next"` (when there is a next page) and `X-Total-Count`. */
export function setPageHeaders(c: Context<AppEnv>, page: { nextCursor: string | null; totalCount: number }): void {
  if (page.nextCursor) c.header('Link', `<${nextPageUrl(c, page.nextCursor)}>; rel="next"`)
  c.header('X-Total-Count', String(page.totalCount))
}
