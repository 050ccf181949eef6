// The dashboard's first paint (issue 19): how long a cold load of the errors list takes until it
// shows 30 rows, next to a static HTML page with the same 30 rows (the same stylesheet), measured
// in one run on this machine, alternating (static, app, static, app, …) so that the machine's
// load falls on both alike. Each load is a new browser context (no cache, no connections kept).
//   node --import tsx bench/first-paint.ts   (or the `firstpaint` phase of `npm run bench`)
//
// Against a real Errata: `vite build`, then server/main.ts as a process of its own, with its own
// data directory and port, seeded through /notify with 40 errors. Chromium is /usr/bin/chromium,
// driven by Playwright's library (no test runner). Also measured: the bytes that cross the wire for
// the first page (as Chromium asks: brotli), from the DevTools protocol's encoded lengths.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from '@playwright/test'
import { buildNotifyPayload } from './payload.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ADMIN = { email: 'bench-admin@example.com', password: 'bench-password-123' }
const ROWS = 30
const SEEDED_ERRORS = 40
/** Tall enough that the virtualized list renders all 30 rows, as the static page shows them. */
const VIEWPORT = { width: 1280, height: 3000 }
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic']

export interface Spread {
  min: number
  median: number
  max: number
}

export interface FirstPaintResult {
  loads: number
  rows: number
  /** Milliseconds from navigation start to 30 rows on screen. */
  staticMs: Spread
  appMs: Spread
  /** Milliseconds until the app's own list shows the rows (the page's shell gone). */
  appReadyMs: Spread
  /**
   * The page's first API request (GET /api/user), from the navigation's start: when the early
   * script called `fetch`, and when the request got a connection and was sent (resource timing).
   */
  apiFetchMs: Spread
  apiSentMs: Spread
  /** When the list's answer (its first page of errors) had arrived. */
  listAnsweredMs: Spread
  /** app / static per pair of loads, and the ratio of the medians (the target: ≤ 2). */
  pairRatio: Spread
  medianRatio: number
  /** Bytes on the wire for the app's first page until the rows show (median of the loads). */
  wire: { totalBytes: number; scriptsAndStyles: number; api: number; documents: number; encodings: string[] }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const spread = (values: number[]): Spread => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) })

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

interface RunningServer {
  url: string
  close(): Promise<void>
}

/** server/main.ts in a process of its own, on a fresh data directory, serving the build in dist/. */
async function startErrata(): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'errata-first-paint-'))
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ERRATA_STATIC_DIR: join(ROOT, 'dist'),
      ERRATA_ADMIN_EMAIL: ADMIN.email,
      ERRATA_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    },
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  const url = `http://127.0.0.1:${port}`
  try {
    await waitFor('Errata to answer /healthz', async () => ((await fetch(`${url}/healthz`)).ok ? true : undefined), 120_000)
  } catch (error) {
    await close()
    throw error
  }
  return { url, close }
}

interface ListedError {
  id: string
  error_class: string
  message: string | null
  context: string | null
  events: number
  users: number
  last_seen: string
}

/** An organization and project with SEEDED_ERRORS errors, as a notifier sends them. */
async function seed(url: string): Promise<{ token: string; projectId: string; errors: ListedError[] }> {
  const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) })
  if (!login.ok) throw new Error(`sign-in answered ${login.status}`)
  const { token } = (await login.json()) as { token: string }
  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `token ${token}`, 'X-Version': '2', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as T
  }
  const organization = await api<{ id: string }>('/user/organizations', { name: 'First paint' })
  const project = await api<{ id: string; api_key: string }>(`/organizations/${organization.id}/projects`, { name: 'Checkout', type: 'node' })
  for (let variant = 0; variant < SEEDED_ERRORS; variant++) {
    const res = await fetch(`${url}/notify`, {
      method: 'POST',
      headers: { 'Bugsnag-Api-Key': project.api_key, 'Bugsnag-Payload-Version': '4', 'Content-Type': 'application/json' },
      body: JSON.stringify(buildNotifyPayload(project.api_key, variant)),
    })
    if (!res.ok) throw new Error(`/notify answered ${res.status}`)
  }
  const errors = await waitFor(
    `${SEEDED_ERRORS} errors to be listed`,
    async () => {
      const list = await api<ListedError[]>(`/projects/${project.id}/errors?per_page=${ROWS}&sort=last_seen&direction=desc`)
      const all = await api<ListedError[]>(`/projects/${project.id}/errors?per_page=100`)
      return all.length >= SEEDED_ERRORS ? list : undefined
    },
    60_000,
  )
  return { token, projectId: project.id, errors }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The same 30 rows as plain HTML, with the app's stylesheet (served beside it: Errata's assets are same-origin only). */
function staticPage(errors: ListedError[], stylesheetUrl: string): string {
  const rows = errors
    .map(
      (error) => `<li class="flex items-center gap-3 border-b border-border px-4 py-2">
  <div class="min-w-0 flex-1"><a class="font-medium text-accent" href="#${error.id}">${escapeHtml(error.error_class)}</a>
  <p class="truncate text-sm text-muted-foreground">${escapeHtml(error.message ?? '')}</p>
  <p class="text-xs text-muted-foreground">${escapeHtml(error.context ?? '')}</p></div>
  <span class="tabular-nums text-sm">${error.events}</span><span class="tabular-nums text-sm">${error.users}</span>
  <time class="text-xs text-muted-foreground">${escapeHtml(error.last_seen)}</time></li>`,
    )
    .join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Errors · Errata</title>
<link rel="stylesheet" href="${stylesheetUrl}"></head>
<body><main class="mx-auto max-w-7xl px-4 py-6"><h1 class="text-xl font-semibold">Checkout: errors</h1>
<ul aria-label="Errors" class="rounded-lg border border-border bg-surface">${rows}</ul></main></body></html>`
}

/** The static page at / and the app's stylesheet at /app.css, brotli-compressed for a browser that takes it, as Errata sends it. */
async function serveStatic(html: string, stylesheetFile: string): Promise<{ url: string; server: Server }> {
  const css = readFileSync(stylesheetFile)
  const cssBrotli = readFileSync(`${stylesheetFile}.br`)
  const server = createServer((req, res) => {
    if (req.url === '/app.css') {
      const brotli = /\bbr\b/.test(String(req.headers['accept-encoding'] ?? ''))
      res.writeHead(200, { 'Content-Type': 'text/css', 'Cache-Control': 'no-store', ...(brotli ? { 'Content-Encoding': 'br' } : {}) })
      res.end(brotli ? cssBrotli : css)
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
    res.end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server }
}

interface LoadResult {
  ms: number
  /** The app's own list in place (the page's shell gone), for the app's loads. */
  appReadyMs?: number
  /** The first API request's fetch call and its sending, for the app's loads. */
  api?: { fetchMs: number; sentMs: number; listMs: number }
  wire?: { totalBytes: number; scriptsAndStyles: number; api: number; documents: number; encodings: string[] }
}

/**
 * One cold load: a new context, the page opened, and the time (the page's own clock, from the
 * navigation's start) of the first animation frame at which `selector` matches 30 rows; with
 * `appSelector`, also of the first at which the app's own list has them and the shell is gone.
 */
async function coldLoad(browser: Browser, url: string, selector: string, token?: string, appSelector?: string): Promise<LoadResult> {
  const context = await browser.newContext({ viewport: VIEWPORT })
  try {
    if (token) await context.addInitScript((value) => window.localStorage.setItem('errata.token', value), token)
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const requests = new Map<string, { type: string; encoding: string }>()
    const bytes = { totalBytes: 0, scriptsAndStyles: 0, api: 0, documents: 0 }
    const encodings = new Set<string>()
    cdp.on('Network.responseReceived', (event) => {
      const headers = Object.fromEntries(Object.entries(event.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]))
      requests.set(event.requestId, { type: event.type, encoding: headers['content-encoding'] ?? 'identity' })
    })
    cdp.on('Network.loadingFinished', (event) => {
      const request = requests.get(event.requestId)
      bytes.totalBytes += event.encodedDataLength
      if (!request) return
      if (request.type === 'Script' || request.type === 'Stylesheet') {
        bytes.scriptsAndStyles += event.encodedDataLength
        encodings.add(request.encoding)
      } else if (request.type === 'Fetch' || request.type === 'XHR') bytes.api += event.encodedDataLength
      else if (request.type === 'Document') bytes.documents += event.encodedDataLength
    })
    await page.goto(url, { waitUntil: 'commit' })
    // Two moments, each at the first animation frame it holds: 30 rows on screen (the page's own
    // first paint or the app's list, whichever shows them first), and the app's own list in
    // place with the page's shell gone (src/lib/first-paint.ts).
    const handle = await page.waitForFunction(
      ({ selector, rows, appSelector }) => {
        const times = ((window as unknown as { __benchTimes?: { rows?: number; app?: number } }).__benchTimes ??= {})
        const now = performance.now()
        if (times.rows === undefined && document.querySelectorAll(selector).length >= rows) times.rows = now
        if (appSelector && times.app === undefined && !document.getElementById('first-paint') && document.querySelectorAll(appSelector).length >= rows) times.app = now
        return times.rows !== undefined && (!appSelector || times.app !== undefined) && times
      },
      { selector, rows: ROWS, appSelector: appSelector ?? null },
      { polling: 'raf', timeout: 60_000 },
    )
    // What had crossed the wire when the app's list was in place (later requests, the trend's, are not the first page's).
    const wire = { ...bytes, encodings: [...encodings].sort() }
    const times = (await handle.jsonValue()) as { rows: number; app?: number }
    const ms = times.rows
    const api = token
      ? await page.evaluate(() => {
          const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[]
          const entry = entries.find((item) => new URL(item.name).pathname === '/api/user')
          const list = entries.find((item) => /^\/api\/projects\/[^/]+\/errors$/.test(new URL(item.name).pathname))
          return entry && list ? { fetchMs: entry.startTime, sentMs: entry.requestStart, listMs: list.responseEnd } : undefined
        })
      : undefined
    return { ms, appReadyMs: times.app, api, wire: token ? wire : undefined }
  } finally {
    await context.close()
  }
}

export async function firstPaintBench(log: (line: string) => void = console.log): Promise<FirstPaintResult> {
  const loads = Number(process.env.BENCH_FIRST_PAINT_LOADS ?? 10)
  log('building the dashboard (vite build)…')
  execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' })
  const errata = await startErrata()
  let staticServer: Server | undefined
  let browser: Browser | undefined
  try {
    const { token, projectId, errors } = await seed(errata.url)
    const index = readFileSync(join(ROOT, 'dist/index.html'), 'utf8')
    const stylesheet = /<link rel="stylesheet"[^>]*href="([^"]+)"/.exec(index)?.[1]
    if (!stylesheet) throw new Error('dist/index.html names no stylesheet')
    const served = await serveStatic(staticPage(errors, '/app.css'), join(ROOT, 'dist', stylesheet))
    staticServer = served.server
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
    const appUrl = `${errata.url}/projects/${projectId}/errors`
    // The app's rows: list items of the errors list holding an error's link (not the loading row).
    // The rows on screen: the page's first paint of them (src/first-paint/) or the app's, whichever comes first.
    const appRows = '[role="list"][aria-label="Errors"] > [role="listitem"] a[href*="/errors/"]'
    const appOwnRows = `#root ${appRows}`
    const staticRows = 'ul[aria-label="Errors"] > li'
    // One of each first, unmeasured: the server's and the browser's first-use costs.
    await coldLoad(browser, served.url, staticRows)
    await coldLoad(browser, appUrl, appRows, token, appOwnRows)
    const staticMs: number[] = []
    const appMs: number[] = []
    const appReadyMs: number[] = []
    const apiFetchMs: number[] = []
    const apiSentMs: number[] = []
    const listAnsweredMs: number[] = []
    const wires: NonNullable<LoadResult['wire']>[] = []
    for (let i = 0; i < loads; i++) {
      const still = await coldLoad(browser, served.url, staticRows)
      const app = await coldLoad(browser, appUrl, appRows, token, appOwnRows)
      staticMs.push(still.ms)
      appMs.push(app.ms)
      appReadyMs.push(app.appReadyMs!)
      if (app.api) {
        apiFetchMs.push(app.api.fetchMs)
        apiSentMs.push(app.api.sentMs)
        listAnsweredMs.push(app.api.listMs)
      }
      if (app.wire) wires.push(app.wire)
      log(
        `load ${String(i + 1).padStart(2)}: static ${still.ms.toFixed(0).padStart(5)} ms, app ${app.ms.toFixed(0).padStart(5)} ms (its own list in place at ${app.appReadyMs!.toFixed(0).padStart(5)} ms)`,
      )
    }
    const pairRatio = spread(appMs.map((ms, i) => ms / staticMs[i]!))
    const result: FirstPaintResult = {
      loads,
      rows: ROWS,
      staticMs: spread(staticMs),
      appMs: spread(appMs),
      appReadyMs: spread(appReadyMs),
      apiFetchMs: spread(apiFetchMs),
      apiSentMs: spread(apiSentMs),
      listAnsweredMs: spread(listAnsweredMs),
      pairRatio,
      medianRatio: median(appMs) / median(staticMs),
      wire: {
        totalBytes: median(wires.map((w) => w.totalBytes)),
        scriptsAndStyles: median(wires.map((w) => w.scriptsAndStyles)),
        api: median(wires.map((w) => w.api)),
        documents: median(wires.map((w) => w.documents)),
        encodings: [...new Set(wires.flatMap((w) => w.encodings))],
      },
    }
    const fmt = (s: Spread) => `${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)} ms`
    log(`static page, ${ROWS} rows (min / median / max): ${fmt(result.staticMs)}`)
    log(`errors list, ${ROWS} rows (min / median / max): ${fmt(result.appMs)}`)
    log(`the app's own list in place (min / median / max): ${fmt(result.appReadyMs)}`)
    log(`the first API request's fetch call (min / median / max): ${fmt(result.apiFetchMs)}, sent: ${fmt(result.apiSentMs)}`)
    log(`the list's answer in (min / median / max): ${fmt(result.listAnsweredMs)}`)
    log(
      `app / static: ${result.medianRatio.toFixed(2)}× by medians; per pair ${pairRatio.min.toFixed(2)} / ${pairRatio.median.toFixed(2)} / ${pairRatio.max.toFixed(2)} (target ≤ 2) [${result.medianRatio <= 2 ? 'met' : 'MISSED'}]`,
    )
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
    log(
      `on the wire until the app's list is in place: ${kb(result.wire.totalBytes)} (scripts and styles ${kb(result.wire.scriptsAndStyles)} as ${result.wire.encodings.join(', ')}, API ${kb(result.wire.api)}, document ${kb(result.wire.documents)})`,
    )
    return result
  } finally {
    await browser?.close()
    if (staticServer) await new Promise<void>((resolve) => staticServer!.close(() => resolve()))
    await errata.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  firstPaintBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
