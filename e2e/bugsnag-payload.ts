import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The real @bugsnag/node capture: its notifier block and overall shape are what we send. */
const capture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../test/fixtures/wire/node-notify-cause-chain.body.json', import.meta.url)), 'utf8'),
) as { notifier: Record<string, unknown>; events: Record<string, unknown>[] }

export const XSS_MESSAGE = 'Payment failed for order: <img src=x onerror=alert(1)>'

const submitOrderCode = {
  '39': 'export async function submitOrder(cart: Cart, gateway: Gateway) {',
  '40': '  const intent = await gateway.createIntent(cart.id)',
  '41': '  // The gateway answers with an amount object; older carts have none.',
  '42': '  const total = cart.totals.amount.value',
  '43': '  return gateway.charge(intent, total)',
  '44': '}',
}

const handleCheckoutCode = {
  '16': 'router.post("/api/checkout", async (req, res) => {',
  '17': '  const cart = await carts.load(req.session.cartId)',
  '18': '  const receipt = await submitOrder(cart, gateway)',
  '19': '  res.json(receipt)',
  '20': '})',
}

/** One realistic Node event: a cause chain, in-project frames with code, breadcrumbs, metadata, user, flags. */
export function checkoutEvent(sequence: number, sentAt: Date): Record<string, unknown> {
  const base = capture.events[0] ?? {}
  const at = (offsetMs: number) => new Date(sentAt.getTime() - offsetMs).toISOString()
  return {
    ...base,
    payloadVersion: '4',
    exceptions: [
      {
        errorClass: 'CheckoutError',
        errorMessage: `${XSS_MESSAGE} #${1000 + sequence}`,
        message: `${XSS_MESSAGE} #${1000 + sequence}`,
        type: 'nodejs',
        stacktrace: [
          { file: '/app/src/checkout/submit-order.ts', method: 'submitOrder', lineNumber: 42, columnNumber: 33, inProject: true, code: submitOrderCode },
          { file: '/app/node_modules/express/lib/router/layer.js', method: 'Layer.handle [as handle_request]', lineNumber: 95, columnNumber: 5, inProject: false },
          { file: '/app/node_modules/express/lib/router/route.js', method: 'next', lineNumber: 149, columnNumber: 13, inProject: false },
          { file: '/app/src/routes/checkout.ts', method: 'handleCheckout', lineNumber: 18, columnNumber: 25, inProject: true, code: handleCheckoutCode },
          { file: '/app/node_modules/express/lib/router/route.js', method: 'Route.dispatch', lineNumber: 119, columnNumber: 3, inProject: false },
          { file: 'node:internal/process/task_queues', method: 'process.processTicksAndRejections', lineNumber: 95, columnNumber: 5, inProject: false },
        ],
      },
      {
        errorClass: 'PaymentGatewayError',
        errorMessage: 'card declined by gateway (code 51)',
        type: 'nodejs',
        stacktrace: [
          { file: '/app/src/payments/gateway.ts', method: 'Gateway.charge', lineNumber: 77, columnNumber: 15, inProject: true },
          { file: '/app/node_modules/undici/lib/fetch/index.js', method: 'fetchFinale', lineNumber: 1058, columnNumber: 9, inProject: false },
        ],
      },
      {
        errorClass: 'TypeError',
        errorMessage: "Cannot read properties of undefined (reading 'value')",
        type: 'nodejs',
        stacktrace: [
          { file: '/app/src/checkout/totals.ts', method: 'readAmount', lineNumber: 12, columnNumber: 20, inProject: true },
          // A recursion through nested line groups: folded on the event page.
          ...Array.from({ length: 6 }, () => [
            { file: '/app/src/checkout/totals.ts', method: 'sumLines', lineNumber: 24, columnNumber: 14, inProject: true },
            { file: '/app/src/checkout/totals.ts', method: 'sumGroup', lineNumber: 31, columnNumber: 10, inProject: true },
          ]).flat(),
        ],
      },
    ],
    severity: 'error',
    unhandled: true,
    severityReason: { type: 'unhandledException' },
    context: 'POST /api/checkout',
    app: { releaseStage: 'production', version: `2.4.${sequence}`, type: 'express', duration: 1200 + sequence },
    device: {
      osName: 'linux (x64)',
      osVersion: '6.1.0-18-amd64',
      hostname: `web-${sequence}`,
      runtimeVersions: { node: '20.20.2' },
      time: sentAt.toISOString(),
    },
    request: {
      url: 'https://shop.example.com/api/checkout',
      httpMethod: 'POST',
      clientIp: '203.0.113.7',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)', accept: 'application/json' },
    },
    user: { id: `user-${sequence}`, name: 'Ada Lovelace', email: 'ada@example.com' },
    breadcrumbs: [
      { type: 'navigation', name: 'Opened /cart', timestamp: at(4000), metaData: { from: '/products/42' } },
      { type: 'user', name: 'User clicked checkout', timestamp: at(2500), metaData: { cartItems: 3, total: 42.5 } },
      { type: 'request', name: 'POST /api/checkout', timestamp: at(1200), metaData: { status: 500, duration: 812 } },
      { type: 'log', name: 'gateway responded', timestamp: at(300), metaData: { code: 51 } },
    ],
    metaData: {
      order: { id: `ord_${1000 + sequence}`, total: 42.5, currency: 'EUR', items: [{ sku: 'A-1', qty: 2 }, { sku: 'B-7', qty: 1 }] },
      company: { name: 'Acme Inc.', plan: 'enterprise', note: '<script>alert("meta")</script>' },
    },
    featureFlags: [
      { featureFlag: 'checkout-v2', variant: 'treatment' },
      { featureFlag: 'dark-mode' },
    ],
    threads: [
      {
        id: '12',
        name: 'payment-worker',
        type: 'nodejs',
        state: 'WAITING',
        stacktrace: [{ file: '/app/src/payments/queue.ts', method: 'Queue.poll', lineNumber: 31, columnNumber: 9, inProject: true }],
      },
      {
        id: '1',
        name: 'main',
        type: 'nodejs',
        errorReportingThread: true,
        state: 'RUNNABLE',
        stacktrace: [{ file: '/app/src/checkout/submit-order.ts', method: 'submitOrder', lineNumber: 42, columnNumber: 33, inProject: true }],
      },
    ],
  }
}

/** A different error, to have more than one row in the list. */
export function otherEvent(sentAt: Date): Record<string, unknown> {
  return {
    payloadVersion: '4',
    exceptions: [
      {
        errorClass: 'RangeError',
        errorMessage: 'Invalid array length',
        type: 'nodejs',
        stacktrace: [{ file: '/app/src/reports/export.ts', method: 'buildRows', lineNumber: 9, columnNumber: 14, inProject: true }],
      },
    ],
    severity: 'warning',
    unhandled: false,
    severityReason: { type: 'handledException' },
    context: 'GET /api/reports/export',
    app: { releaseStage: 'staging', version: '2.4.0' },
    device: { osName: 'linux (x64)', hostname: 'worker-1', time: sentAt.toISOString() },
    user: { id: 'user-7', email: 'grace@example.com' },
    metaData: {},
  }
}

export function notifyBody(apiKey: string, events: Record<string, unknown>[]): Record<string, unknown> {
  return { apiKey, notifier: capture.notifier, events }
}

export interface SimpleEventOptions {
  errorClass: string
  message?: string
  /** The in-project file of the top frame: with the class, what groups events into one error. */
  file?: string
  releaseStage?: string
  appVersion?: string
  context?: string
  user?: { id?: string; name?: string; email?: string }
  osName?: string
  browserName?: string
  severity?: 'error' | 'warning' | 'info'
}

/** A small event for the triage journeys: one exception, one in-project frame, the fields pivots read. */
export function simpleEvent(options: SimpleEventOptions, sentAt = new Date()): Record<string, unknown> {
  const file = options.file ?? `/app/src/${options.errorClass.toLowerCase()}.ts`
  return {
    payloadVersion: '4',
    exceptions: [
      {
        errorClass: options.errorClass,
        errorMessage: options.message ?? `${options.errorClass} happened`,
        type: 'browserjs',
        stacktrace: [{ file, method: 'run', lineNumber: 10, columnNumber: 5, inProject: true }],
      },
    ],
    severity: options.severity ?? 'error',
    unhandled: true,
    severityReason: { type: 'unhandledException' },
    context: options.context ?? `/${options.errorClass.toLowerCase()}`,
    app: { releaseStage: options.releaseStage ?? 'production', version: options.appVersion ?? '1.0.0' },
    device: {
      osName: options.osName ?? 'Linux',
      browserName: options.browserName ?? 'Firefox',
      time: sentAt.toISOString(),
    },
    ...(options.user ? { user: options.user } : {}),
    metaData: {},
  }
}
