// What the request log may say about a URL. Some URLs carry credentials: an invitation's accept
// link (/invitations/<token>), and clients that put their token or API key in the query string.
// Anyone who can read the logs must not be able to use them.

/** Path segments after one of these are secrets (the token of an accept link). */
const SECRET_AFTER_SEGMENT = new Set(['invitations'])

/** Query parameters that carry credentials, whatever their case. */
const SECRET_PARAMS = new Set(['auth_token', 'api_key', 'apikey', 'token', 'access_token', 'password'])

export const REDACTED = '[redacted]'

/** The path with secret segments replaced: `/api/invitations/abc/accept` → `/api/invitations/[redacted]/accept`. */
export function redactPath(path: string): string {
  const parts = path.split('/')
  for (let i = 1; i < parts.length; i++) {
    if (SECRET_AFTER_SEGMENT.has(parts[i - 1]!.toLowerCase()) && parts[i] !== '') parts[i] = REDACTED
  }
  return parts.join('/')
}

/** The query string (without `?`) with the values of credential parameters replaced; undefined when empty. */
export function redactQuery(query: string): string | undefined {
  if (query === '') return undefined
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      const name = eq < 0 ? pair : pair.slice(0, eq)
      let decoded = name
      try {
        decoded = decodeURIComponent(name)
      } catch {
        // A malformed escape: judged as written.
      }
      return SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=${REDACTED}` : pair
    })
    .join('&')
}

/** `{ path, query? }` of a request URL (absolute or origin-form), fit for the log. */
export function loggedUrl(url: string): { path: string; query?: string } {
  const start = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2)
  const pathAndQuery = start < 0 ? '/' : url.slice(start)
  const hash = pathAndQuery.indexOf('#')
  const withoutHash = hash < 0 ? pathAndQuery : pathAndQuery.slice(0, hash)
  const q = withoutHash.indexOf('?')
  const path = redactPath(q < 0 ? withoutHash : withoutHash.slice(0, q))
  const query = q < 0 ? undefined : redactQuery(withoutHash.slice(q + 1))
  return query === undefined ? { path } : { path, query }
}

/** Whether a request answered `status` gets a log line under ERRATA_REQUEST_LOG. */
export function shouldLogRequest(setting: 'all' | 'errors' | 'off', status: number): boolean {
  return setting === 'all' || (setting === 'errors' && status >= 400)
}
