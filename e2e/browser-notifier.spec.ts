import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { expect, test } from '@playwright/test'
import { Api, createProject, waitForIndexing } from './support.ts'

// The real @bugsnag/browser bundle in Chromium, on a shop page served by its own server on
// another port (another origin than Errata's): the browser itself enforces CORS, sends the
// preflight, and drops the report unless Errata answers both requests correctly. The shop is a
// real server on loopback, not a routed page: Chromium refuses a page it cannot place on the
// network access to loopback addresses (Local Network Access), whatever Errata answers.
const BUNDLE = readFileSync(createRequire(import.meta.url).resolve('@bugsnag/browser/dist/bugsnag.min.js'), 'utf8')

function shopPage(apiKey: string, errataUrl: string): string {
  return `<!doctype html><html><head><title>Shop</title><script src="/shop/bugsnag.min.js"></script></head>
    <body><button id="pay">Pay now</button>
    <script>
      Bugsnag.start({
        apiKey: ${JSON.stringify(apiKey)},
        endpoints: { notify: ${JSON.stringify(`${errataUrl}/notify`)}, sessions: ${JSON.stringify(`${errataUrl}/sessions`)} },
        appVersion: '3.1.0',
        releaseStage: 'production',
        metadata: { cart: { items: 2, coupon: 'WINTER' } },
      })
      document.getElementById('pay').addEventListener('click', function payNow() {
        throw new TypeError('Cannot read properties of undefined (reading "total")')
      })
    </script></body></html>`
}

/** The shop's own web server: the page and the notifier bundle. */
async function startShop(page: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const script = req.url === '/shop/bugsnag.min.js'
    res.writeHead(200, { 'Content-Type': script ? 'text/javascript' : 'text/html' })
    res.end(script ? BUNDLE : page)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

interface ApiEvent {
  exceptions: Array<{ class: string; message: string; stacktrace: Array<{ file: string | null; method: string | null }> }>
  request: { url?: string }
  device: { browserName?: string }
  app: { version?: string }
  breadcrumbs: Array<{ name: string; type: string }>
  meta_data: Record<string, Record<string, unknown>>
  unhandled: boolean
}

let shop: { origin: string; server: Server } | undefined
test.afterEach(() => {
  shop?.server.close()
  shop = undefined
})

test('the real Bugsnag browser notifier reports from another origin in Chromium', async ({ page, request, baseURL }) => {
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'storefront')
  shop = await startShop(shopPage(apiKey, baseURL!))
  const shopUrl = `${shop.origin}/shop/checkout?step=2`

  // The JSON POSTs need a CORS preflight, which Chromium sends without showing it to the page: a
  // 200 the notifier could read means Errata answered the preflight and the POST.
  const crossOrigin: Array<{ method: string; url: string; status: number }> = []
  page.on('response', (response) => {
    if (response.url().startsWith(baseURL!)) crossOrigin.push({ method: response.request().method(), url: response.url(), status: response.status() })
  })
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && /CORS|Access-Control/i.test(message.text())) consoleErrors.push(message.text())
  })

  await page.goto(shopUrl)
  // An uncaught error from a click handler, and a handled one reported by the app.
  await page.getByRole('button', { name: 'Pay now' }).click()
  await page.evaluate(() => {
    ;(window as unknown as { Bugsnag: { notify(error: Error): void } }).Bugsnag.notify(new RangeError('coupon WINTER expired'))
  })
  await expect.poll(() => crossOrigin.filter((r) => r.method === 'POST' && r.url.endsWith('/notify')).map((r) => r.status)).toEqual([200, 200])
  expect(crossOrigin.some((r) => r.method === 'POST' && r.url.endsWith('/sessions') && r.status === 202)).toBe(true)
  expect(consoleErrors).toEqual([])

  await waitForIndexing(request)
  const events = await api.get<ApiEvent[]>(`/projects/${projectId}/events?per_page=10`)
  const byClass = new Map(events.map((event) => [event.exceptions[0]!.class, event]))
  expect([...byClass.keys()].sort()).toEqual(['RangeError', 'TypeError'])

  const crash = byClass.get('TypeError')!
  expect(crash.unhandled).toBe(true)
  expect(crash.exceptions[0]!.message).toBe('Cannot read properties of undefined (reading "total")')
  expect(crash.exceptions[0]!.stacktrace[0]).toMatchObject({ method: 'HTMLButtonElement.payNow', file: `${shop!.origin}/shop/checkout` })
  expect(crash.request.url).toBe(shopUrl)
  expect(crash.device.browserName).toBe('Chrome')
  expect(crash.app.version).toBe('3.1.0')
  expect(crash.meta_data.cart).toEqual({ items: 2, coupon: 'WINTER' })
  expect(crash.breadcrumbs.map((crumb) => crumb.type)).toContain('user')

  const handled = byClass.get('RangeError')!
  expect(handled.unhandled).toBe(false)
  expect(handled.exceptions[0]!.message).toBe('coupon WINTER expired')
})
