import { z } from 'zod/mini'
import { apiErrorSchema } from '../../contract/api-error.ts'
import { takeFirstRequest } from '../lib/first-requests.ts'
import { SERVER_UNREACHABLE_MESSAGE } from '../lib/route-chunks.ts'
import { clearToken, readToken } from '../lib/token-store.ts'

export const API_BASE = '/api'

/** A failed API call: the HTTP status (0 when the server could not be reached) and the server's messages. */
export class ApiError extends Error {
  readonly status: number
  readonly messages: string[]

  constructor(status: number, messages: string[]) {
    super(messages.join('; ') || `request failed with status ${status}`)
    this.name = 'ApiError'
    this.status = status
    this.messages = messages
  }
}

export const isApiError = (error: unknown, status?: number): error is ApiError =>
  error instanceof ApiError && (status === undefined || error.status === status)

/** One page of a list endpoint: the items plus what the Link and X-Total-Count headers say. */
export interface Page<T> {
  items: T[]
  /** Same-origin path (with query) of the next page, from `Link: <…>; rel="next"`; null on the last page. */
  nextUrl: string | null
  /** The `cursor` parameter of the next page, for pages addressed from the URL bar. */
  nextCursor: string | null
  totalCount: number | null
}

let unauthorizedHandler: (() => void) | undefined

/** Called when the server rejects our token (401): main.tsx sends the user to /login. */
export function setUnauthorizedHandler(handler: (() => void) | undefined): void {
  unauthorizedHandler = handler
}

type Query = Record<string, string | number | undefined | null>

/** `/api` + path + query string (undefined/null values are left out). */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  }
  const qs = params.toString()
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`
}

/** Parses an RFC 8288 Link header into rel → URL. */
export function parseLinkHeader(header: string | null): Record<string, string> {
  const links: Record<string, string> = {}
  if (!header) return links
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part)
    if (!match) continue
    const [, url = '', params = ''] = match
    const rel = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(params)?.[1]
    if (!rel) continue
    for (const name of rel.trim().split(/\s+/)) links[name.toLowerCase()] = url
  }
  return links
}

/**
 * The server writes absolute URLs (its public origin); we request the same path on our own
 * origin so a proxy or ERRATA_PUBLIC_URL in front of the server does not break paging.
 */
function toSameOrigin(url: string): { path: string; cursor: string | null } {
  const parsed = new URL(url, window.location.origin)
  return { path: `${parsed.pathname}${parsed.search}`, cursor: parsed.searchParams.get('cursor') }
}

async function readErrorMessages(response: Response): Promise<string[]> {
  try {
    const parsed = apiErrorSchema.safeParse(await response.json())
    if (parsed.success && parsed.data.errors.length > 0) return parsed.data.errors
  } catch {
    // Not JSON (a proxy's HTML page, an empty body): fall back to the status line.
  }
  return [`${response.status} ${response.statusText || 'request failed'}`.trim()]
}

interface SendOptions {
  method?: string
  body?: unknown
  signal?: AbortSignal
}

/** What every API request sends: the API version and the session's token (when signed in). */
export function apiRequestHeaders(token: string | null = readToken()): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Version': '2' }
  if (token) headers.Authorization = `token ${token}`
  return headers
}

/** A rejected token means the session is over; a 401 without a token (wrong password) is just an answer. */
export function endSessionOnRejectedToken(status: number, token: string | null): void {
  if (status === 401 && token) {
    clearToken()
    unauthorizedHandler?.()
  }
}

async function send(url: string, { method = 'GET', body, signal }: SendOptions = {}): Promise<Response> {
  const token = readToken()
  const headers = apiRequestHeaders(token)
  if (body !== undefined) headers['Content-Type'] = 'application/json'

  let response: Response
  try {
    // A GET the page already started (src/first-paint/first-requests.ts) is not asked twice.
    const started = method === 'GET' ? takeFirstRequest(url, token) : undefined
    response = await (started ?? fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }))
  } catch (error) {
    if (signal?.aborted) throw error
    throw new ApiError(0, [SERVER_UNREACHABLE_MESSAGE])
  }
  if (response.ok) return response

  const messages = await readErrorMessages(response)
  endSessionOnRejectedToken(response.status, token)
  throw new ApiError(response.status, messages)
}

function parseBody<S extends z.ZodMiniType>(schema: S, data: unknown, url: string): z.infer<S> {
  const parsed = schema.safeParse(data)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape'
    throw new ApiError(502, [`Unexpected response from ${url.split('?')[0]}: ${where}`])
  }
  return parsed.data
}

export async function getJson<S extends z.ZodMiniType>(url: string, schema: S, signal?: AbortSignal): Promise<z.infer<S>> {
  const response = await send(url, { signal })
  return parseBody(schema, await response.json(), url)
}

/** GET a list endpoint and read its paging headers. */
export async function getPage<S extends z.ZodMiniType>(url: string, itemSchema: S, signal?: AbortSignal): Promise<Page<z.infer<S>>> {
  const response = await send(url, { signal })
  const items = parseBody(z.array(itemSchema), await response.json(), url) as z.infer<S>[]
  const next = parseLinkHeader(response.headers.get('Link')).next
  const nextPage = next ? toSameOrigin(next) : null
  const total = response.headers.get('X-Total-Count')
  const totalCount = total !== null && /^\d+$/.test(total.trim()) ? Number(total) : null
  return { items, nextUrl: nextPage?.path ?? null, nextCursor: nextPage?.cursor ?? null, totalCount }
}

export async function sendJson<S extends z.ZodMiniType>(
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  body: unknown,
  schema: S,
): Promise<z.infer<S>> {
  const response = await send(url, { method, body })
  return parseBody(schema, await response.json(), url)
}

/** For endpoints answering 204 No Content. */
export async function sendEmpty(method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<void> {
  await send(url, { method, body })
}

/**
 * GET a file with the session's token (downloads the browser cannot fetch by itself, as they
 * need the Authorization header), from the same origin as the rest of the API.
 */
export async function getBlob(url: string): Promise<Blob> {
  const response = await send(toSameOrigin(url).path)
  return response.blob()
}
