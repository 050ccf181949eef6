// Realistic Bugsnag Error Reporting payloads (version 4, the shape @bugsnag/node 9 sends; see
// test/fixtures/wire/node-notify-handled.body.json), about 4 KB each, varied across error classes and users.

export const ERROR_CLASS_COUNT = 50
const USER_COUNT = 500

const CLASS_NAMES = ['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'Error', 'ValidationError', 'TimeoutError']
const MODULES = ['checkout', 'cart', 'billing', 'search', 'auth', 'profile', 'orders', 'inventory', 'shipping', 'reports']

function frame(file: string, method: string, line: number, column: number, inProject: boolean) {
  return { file, method, lineNumber: line, columnNumber: column, inProject }
}

/** One notify body. `variant` picks the error class (mod 50) and the user (mod 500); `context` overrides the context. */
export function buildNotifyPayload(apiKey: string, variant: number, context?: string): Record<string, unknown> {
  const classIndex = variant % ERROR_CLASS_COUNT
  const module = MODULES[classIndex % MODULES.length]!
  const errorClass = `${CLASS_NAMES[classIndex % CLASS_NAMES.length]}${classIndex >= CLASS_NAMES.length ? classIndex : ''}`
  const userIndex = (variant * 7919) % USER_COUNT
  const now = new Date().toISOString()
  const line = 40 + classIndex
  const stacktrace = [
    {
      ...frame(`/srv/app/src/${module}/handler-${classIndex}.js`, `${module}Handler.process`, line, 17, true),
      code: {
        [line - 2]: `  const order = await orders.load(request.params.orderId)`,
        [line - 1]: `  const response = await withRetry(() => upstream.post('/${module}', order), { attempts: 3 })`,
        [line]: `  if (!response.ok) throw new UpstreamError(response.status)`,
        [line + 1]: `  return response.json()`,
      },
    },
    frame(`/srv/app/src/${module}/service.js`, `${module}Service.run`, 112, 9, true),
    frame('/srv/app/src/lib/retry.js', 'withRetry', 27, 12, true),
    frame('/srv/app/src/http/router.js', 'Router.dispatch', 88, 22, true),
    frame('/srv/app/node_modules/express/lib/router/layer.js', 'Layer.handle [as handle_request]', 95, 5, false),
    frame('/srv/app/node_modules/express/lib/router/route.js', 'next', 149, 13, false),
    frame('/srv/app/node_modules/express/lib/router/route.js', 'Route.dispatch', 119, 3, false),
    frame('/srv/app/node_modules/express/lib/router/index.js', 'handle', 284, 15, false),
    frame('/srv/app/node_modules/express/lib/router/index.js', 'Function.process_params', 346, 12, false),
    frame('node:internal/process/task_queues', 'process.processTicksAndRejections', 95, 5, false),
  ]
  return {
    apiKey,
    notifier: { name: 'Bugsnag Node', version: '9.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
    events: [
      {
        payloadVersion: '4',
        exceptions: [
          {
            errorClass,
            errorMessage: `${module} failed for order ord_${(variant * 31) % 100000}: upstream answered 503 after 3 retries`,
            message: `${module} failed for order ord_${(variant * 31) % 100000}: upstream answered 503 after 3 retries`,
            type: 'nodejs',
            stacktrace,
          },
        ],
        severity: variant % 5 === 0 ? 'error' : 'warning',
        unhandled: variant % 5 === 0,
        severityReason: { type: variant % 5 === 0 ? 'unhandledException' : 'handledException' },
        app: { releaseStage: variant % 3 === 0 ? 'staging' : 'production', version: `1.${classIndex % 4}.${variant % 7}`, type: 'node', duration: 1800 + variant },
        device: {
          osName: 'linux (x64)',
          osVersion: '6.1.0-18-amd64',
          totalMemory: 25276502016,
          freeMemory: 18453746688,
          hostname: `web-${variant % 8}`,
          runtimeVersions: { node: '20.20.2' },
          time: now,
        },
        request: {
          url: `https://shop.example.com/api/${module}/${variant % 1000}`,
          httpMethod: 'POST',
          headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36', accept: 'application/json' },
          clientIp: `10.0.${variant % 250}.${userIndex % 250}`,
        },
        breadcrumbs: [
          { type: 'navigation', name: `GET /${module}`, timestamp: now, metaData: { status: 200, durationMs: 31 } },
          { type: 'user', name: 'User clicked submit', timestamp: now, metaData: { target: 'button#submit', cartItems: 3 } },
          { type: 'request', name: `POST /api/${module}`, timestamp: now, metaData: { status: 503, durationMs: 30012 } },
          { type: 'log', name: 'retrying upstream call', timestamp: now, metaData: { attempt: 2, backoffMs: 200 } },
          { type: 'log', name: 'retrying upstream call', timestamp: now, metaData: { attempt: 3, backoffMs: 400 } },
          { type: 'manual', name: 'giving up', timestamp: now, metaData: {} },
        ],
        context: context ?? `${module}/submit`,
        metaData: {
          company: { name: `Customer ${userIndex % 40}`, plan: userIndex % 3 === 0 ? 'enterprise' : 'team' },
          order: { id: `ord_${(variant * 31) % 100000}`, total: 42.5 + (variant % 100), currency: 'EUR', items: 3 },
          upstream: { service: `${module}-api`, region: 'eu-west-1', status: 503, attempts: 3, timeoutMs: 10000 },
        },
        user: { id: `user-${userIndex}`, name: `User ${userIndex}`, email: `user${userIndex}@example.com` },
        session: { id: `session-${variant % 2000}`, startedAt: now, events: { handled: 1, unhandled: 0 } },
        featureFlags: [
          { featureFlag: 'checkout-v2', variant: variant % 2 === 0 ? 'treatment' : 'control' },
          { featureFlag: 'dark-mode' },
          { featureFlag: 'new-pricing', variant: 'v3' },
        ],
      },
    ],
  }
}
