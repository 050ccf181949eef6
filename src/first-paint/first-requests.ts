// The first page's API requests, started by the page itself before the app's code has arrived: for
// a signed-in user (the token the app keeps in localStorage, src/lib/token-store.ts), the current
// user and, on an errors list, its project and its first page of errors. The app takes each answer
// once instead of asking again (src/lib/first-requests.ts), so these requests run while its code is
// still arriving. URLs and headers are the app's own (src/api/http.ts, src/api/errors.ts); one that
// differs is simply not taken, and the app asks as it always does.
//
// On the errors list's default view (open errors), the page also paints the list's first rows from
// the answer, before the app runs (errors-shell.ts).
//
// Built on its own into a small classic script (vite.config.ts, `firstPaintScript`) written into
// index.html's head, so that it runs as the page is parsed, before the app's modules; the server
// allows it by its hash (server/web/static-dashboard.ts).
import { TOKEN_KEY } from '../lib/token-store.ts'
import { prepareRowFormatters } from './error-rows.ts'
import { paintErrorsShell } from './errors-shell.ts'
import { readCopy } from './read-copy.ts'

/** Where the errors page keeps whether its trend is folded (features/errors/use-trend-collapsed.ts, which imports React). */
const TREND_COLLAPSED_KEY = 'errata.errors-trend-collapsed'

/** Starts the requests; on the errors list's default view, settles when its rows are painted (or will not be). */
export function startFirstRequests(): Promise<void> | undefined {
  let token: string | null = null
  let trendCollapsed = true
  try {
    token = window.localStorage.getItem(TOKEN_KEY)
    trendCollapsed = window.localStorage.getItem(TREND_COLLAPSED_KEY) !== 'false'
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
    return request
  }
  const finish = () => {
    window.errataFirstRequests = { token: token!, requests }
  }
  /** A request that needs an earlier answer: only while the app may still take it, and not when it already asked itself. */
  const startLater = (url: string) => {
    const started = window.errataFirstRequests
    if (started?.requests !== requests || started.asked?.has(url)) return null
    return start(url)
  }
  start('/api/user')
  const list = /^\/projects\/([^/]+)\/errors\/?$/.exec(window.location.pathname)
  if (!list) return void finish()
  const projectId = decodeURIComponent(list[1]!)
  const projectUrl = `/api/projects/${encodeURIComponent(projectId)}`
  const project = start(projectUrl)
  const projectJson = readCopy(project)
  // The header names the project's organization (its breadcrumbs): asked for as soon as the project says which.
  const organization = projectJson.then((answer) => {
    const id = (answer as { organization_id?: unknown } | null)?.organization_id
    const request = typeof id === 'string' ? startLater(`/api/organizations/${encodeURIComponent(id)}`) : null
    return request ? readCopy(request) : null
  })
  // The list's parameters as the app sends them: sort, direction, page size, then the filters
  // (`f=field:type:value`; no `f` is the default view, open errors).
  const search = new URLSearchParams(window.location.search)
  const params = new URLSearchParams()
  params.set('sort', search.get('sort') || 'last_seen')
  params.set('direction', search.get('direction') || 'desc')
  params.set('per_page', '50')
  const defaultView = !search.has('f')
  const entries = defaultView ? ['error.status:eq:open'] : search.getAll('f').filter(Boolean)
  for (const entry of entries) {
    const match = /^([^:]+):([^:]+):(.*)$/.exec(entry)
    if (!match) return void finish()
    params.append(`filters[${match[1]}][][type]`, match[2]!)
    params.append(`filters[${match[1]}][][value]`, match[3]!)
  }
  const errors = start(`${projectUrl}/errors?${params.toString()}`)
  // Who errors can be assigned to: the list names its rows' assignees (the route asks for it too).
  const collaborators = start(`${projectUrl}/collaborators`)
  finish()
  // The rows are painted only where the shell's frame is the page's: the default view (its filter
  // bar holds one chip) with the trend folded. Anything else keeps the plain shell until the app runs.
  if (defaultView && trendCollapsed) {
    setTimeout(prepareRowFormatters, 0)
    return paintErrorsShell(projectId, { project: projectJson, errors, collaborators, organization, descending: params.get('direction') !== 'asc' })
  }
}
