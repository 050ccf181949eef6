// The first page's API requests, started by the page itself before the app's code has arrived: for
// a signed-in user (the token the app keeps in localStorage, src/lib/token-store.ts), the current
// user and, on an errors list, its project, its first page of errors and the project's
// collaborators (the rows name assignees). The app takes each answer once instead of asking again
// (src/lib/first-requests.ts), so these requests run while its code is still arriving and
// compiling. URLs and headers are the app's own (src/api/http.ts, src/api/errors.ts); one that
// differs is simply not taken, and the app asks as it always does.
//
// Built on its own into a small classic script (vite.config.ts, `firstRequestsScript`) written into
// index.html's head, so that it runs as the page is parsed, before the app's modules; the server
// allows it by its hash (server/web/static-dashboard.ts).
import { TOKEN_KEY } from '../lib/token-store.ts'

export function startFirstRequests(): void {
  let token: string | null = null
  try {
    token = window.localStorage.getItem(TOKEN_KEY)
  } catch {
    return
  }
  if (!token) return
  const headers = { Accept: 'application/json', 'X-Version': '2', Authorization: `token ${token}` }
  const requests: Record<string, Promise<Response>> = {}
  const start = (url: string) => {
    const request = fetch(url, { headers })
    // A failure is the app's to report when it takes the answer; none goes unhandled meanwhile.
    request.catch(() => undefined)
    requests[url] = request
  }
  window.errataFirstRequests = { token, requests }
  start('/api/user')
  const list = /^\/projects\/([^/]+)\/errors\/?$/.exec(window.location.pathname)
  if (!list) return
  const projectUrl = `/api/projects/${encodeURIComponent(decodeURIComponent(list[1]!))}`
  start(projectUrl)
  // The list's parameters as the app sends them: sort, direction, page size, then the filters
  // (`f=field:type:value`; no `f` is the default view, open errors).
  const search = new URLSearchParams(window.location.search)
  const params = new URLSearchParams()
  params.set('sort', search.get('sort') || 'last_seen')
  params.set('direction', search.get('direction') || 'desc')
  params.set('per_page', '50')
  const entries = search.has('f') ? search.getAll('f').filter(Boolean) : ['error.status:eq:open']
  for (const entry of entries) {
    const match = /^([^:]+):([^:]+):(.*)$/.exec(entry)
    if (!match) return
    params.append(`filters[${match[1]}][][type]`, match[2]!)
    params.append(`filters[${match[1]}][][value]`, match[3]!)
  }
  start(`${projectUrl}/errors?${params.toString()}`)
  start(`${projectUrl}/collaborators`)
}
