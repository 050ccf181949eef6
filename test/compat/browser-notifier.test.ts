import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { eq } from 'drizzle-orm'
import type { ErrorEvent } from '../../contract/events.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessionCounts } from '../../server/db/schema.ts'
import { seedProject } from '../../server/test-support/seed.ts'
import { createTestContext, listen, type TestContext, type TestUser } from '../../server/test-support/test-app.ts'

// The real @bugsnag/browser 9 bundle running inside a jsdom page (origin
// http://localhost:8080) and sending cross-origin to the app on 127.0.0.1: jsdom's
// XMLHttpRequest enforces CORS, so the preflight really happens, and an event only
// arrives if Errata answers it correctly. The page is built with JSDOM directly rather
// than by switching the whole test file to the jsdom environment: that replaces Node's URL and module URLs,
// which breaks the server half of this test (migrations read files next to their module).

interface PageWindow {
  eval(code: string): unknown
  document: { createElement(tag: 'script'): { textContent: string }; body: { appendChild(node: unknown): void } }
  close(): void
  location: { origin: string; href: string }
  navigator: { userAgent: string }
  __results: Record<string, string | null>
}
const require = createRequire(import.meta.url)
const { JSDOM } = require('jsdom') as {
  JSDOM: new (html: string, options: Record<string, unknown>) => { window: PageWindow }
}
const BUNDLE = readFileSync(require.resolve('@bugsnag/browser/dist/bugsnag.js'), 'utf8')
const PAGE_URL = 'http://localhost:8080/checkout?step=2'

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let user: TestUser
let projectId: string
let page: PageWindow
const seen: Array<{ method: string; path: string; origin: string | null }> = []

beforeAll(async () => {
  ctx = await createTestContext()
  server = await listen(ctx, (request) => {
    const origin = request.headers.origin
    seen.push({ method: request.method ?? '', path: (request.url ?? '').split('?')[0]!, origin: typeof origin === 'string' ? origin : null })
  })
  const seeded = await seedProject(ctx, { user: 'Browser Compat', organization: 'Browser Compat', project: 'Web app', type: 'js' })
  user = seeded.user
  const { project } = seeded
  projectId = project.id
  page = new JSDOM('<!doctype html><html><head></head><body><h1>Checkout</h1></body></html>', {
    url: PAGE_URL,
    runScripts: 'dangerously',
    pretendToBeVisual: true,
  }).window
  page.eval(BUNDLE)
  page.eval(`
    window.__results = {};
    Bugsnag.start({
      apiKey: ${JSON.stringify(project.api_key)},
      endpoints: { notify: ${JSON.stringify(`${server.url}/notify`)}, sessions: ${JSON.stringify(`${server.url}/sessions`)} },
      appVersion: '2.0.1',
      releaseStage: 'staging',
      autoDetectErrors: false,
      user: { id: 'user-42', name: 'Ada Lovelace', email: 'ada@example.com' },
      metadata: { company: { name: 'Acme Inc.' } },
      featureFlags: [{ name: 'checkout-v2', variant: 'treatment' }],
      logger: null
    });
    function done(name) { return function (err) { window.__results[name] = err ? String(err) : null } }
  `)
})
afterAll(async () => {
  page?.close()
  await server?.close()
  await ctx?.close()
})

/** Runs code as an inline <script> of the page, so its stack frames name the page URL. */
function runInPage(code: string): void {
  const script = page.document.createElement('script')
  script.textContent = code
  page.document.body.appendChild(script)
}

/** Waits (bounded) for the client's delivery callback inside the page. */
async function delivered(name: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(name in page.__results)) {
    if (Date.now() > deadline) throw new Error(`the browser client never finished delivering "${name}"`)
    await new Promise((r) => setTimeout(r, 20))
  }
  expect(page.__results[name]).toBeNull()
}

async function findEvent(message: string): Promise<ErrorEvent> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const res = await ctx.request(`/api/projects/${projectId}/events?per_page=100`, { token: user.token })
    const match = (await res.json()).find((e: ErrorEvent) => e.exceptions[0]?.message === message)
    if (match) return (await ctx.request(`/api/events/${match.id}`, { token: user.token })).json()
    if (Date.now() > deadline) throw new Error(`event "${message}" did not arrive within 10 s`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('@bugsnag/browser 9.0.0 in jsdom against Errata, cross-origin', () => {
  it('runs in a page whose origin differs from the server', () => {
    expect(page.location.origin).toBe('http://localhost:8080')
    expect(page.location.origin).not.toBe(server.url)
  })

  it('delivers a handled error through the CORS preflight with everything intact', async () => {
    runInPage(`
      Bugsnag.leaveBreadcrumb('User clicked checkout', { cartItems: 3 }, 'user');
      function submitOrder() { throw new Error('Browser handled error') }
      try { submitOrder() } catch (err) {
        Bugsnag.notify(err, function (event) {
          event.context = 'checkout/submit';
          event.addMetadata('order', { id: 'ord_123', total: 42.5 });
        }, done('handled'));
      }
    `)
    await delivered('handled')

    const event = await findEvent('Browser handled error')
    const exception = event.exceptions[0]!
    expect(exception.class).toBe('Error')
    expect(exception.type).toBe('browserjs')
    expect(exception.stacktrace.length).toBeGreaterThan(0)
    const top = exception.stacktrace[0]!
    expect(top.method).toBe('submitOrder')
    expect(top.file).toBe('http://localhost:8080/checkout') // the client drops the query string
    expect(Number.isInteger(top.line)).toBe(true)
    expect(event).toMatchObject({
      severity: 'warning',
      unhandled: false,
      context: 'checkout/submit',
      app_version: '2.0.1',
      release_stage: 'staging',
      user: { id: 'user-42', name: 'Ada Lovelace', email: 'ada@example.com' },
      meta_data: { company: { name: 'Acme Inc.' }, order: { id: 'ord_123', total: 42.5 } },
      feature_flags: [{ name: 'checkout-v2', variant: 'treatment' }],
      notifier: { name: 'Bugsnag JavaScript', version: '9.0.0' },
      request: { url: PAGE_URL },
    })
    expect(event.device.userAgent).toBe(page.navigator.userAgent)
    expect(event.device.browserName).toBe('jsdom')
    expect(event.breadcrumbs).toContainEqual(expect.objectContaining({ name: 'User clicked checkout', type: 'user', meta_data: { cartItems: 3 } }))

    // The preflight happened, from the page origin, before the POST.
    const preflight = seen.findIndex((r) => r.method === 'OPTIONS' && r.path === '/notify')
    const post = seen.findIndex((r) => r.method === 'POST' && r.path === '/notify')
    expect(preflight).toBeGreaterThanOrEqual(0)
    expect(preflight).toBeLessThan(post)
    expect(seen[preflight]!.origin).toBe('http://localhost:8080')
  })

  it('delivers a cause chain outermost first', async () => {
    runInPage(`
      var inner = new TypeError('inner cause');
      Bugsnag.notify(new Error('browser outer', { cause: inner }), null, done('cause'));
    `)
    await delivered('cause')
    const event = await findEvent('browser outer')
    expect(event.exceptions.map((e) => [e.class, e.message])).toEqual([
      ['Error', 'browser outer'],
      ['TypeError', 'inner cause'],
    ])
  })

  it('delivers the page-load session through CORS too', async () => {
    const deadline = Date.now() + 10_000
    for (;;) {
      const rows = await ctx.deps.database.db.select().from(sessionCounts).where(eq(sessionCounts.projectId, projectId))
      if (rows.length > 0) {
        expect(rows[0]).toMatchObject({ releaseStage: 'staging', appVersion: '2.0.1', sessions: 1 })
        break
      }
      if (Date.now() > deadline) throw new Error('the session did not arrive within 10 s')
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(seen.some((r) => r.method === 'OPTIONS' && r.path === '/sessions')).toBe(true)
  })
})
