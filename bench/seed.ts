// Bulk seeding for the read benchmark: set-based INSERT … SELECT generate_series straight into the
// schema of server/db/migrations/0001-baseline.sql (HTTP ingestion would take far too long for 200k events).
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../server/db/client.ts'
import { encodeEventPayload, type StoredEventPayload } from '../server/events/event-payload.ts'

export interface SeedOptions {
  projectId: string
  errors: number
  events: number
  /** Events are spread evenly over this many days up to now. */
  days?: number
  /** VACUUM as well as ANALYZE (sets the visibility map, so count(*) can use an index-only scan). */
  vacuum?: boolean
}

/** A normalized stored payload like one ingestion writes for the bench's 4 KB notify body. */
function samplePayload(): StoredEventPayload {
  const frames = [
    ['/srv/app/src/checkout/handler-3.js', 'checkoutHandler.process', 43, true],
    ['/srv/app/src/checkout/service.js', 'checkoutService.run', 112, true],
    ['/srv/app/src/lib/retry.js', 'withRetry', 27, true],
    ['/srv/app/src/http/router.js', 'Router.dispatch', 88, true],
    ['/srv/app/node_modules/express/lib/router/layer.js', 'Layer.handle [as handle_request]', 95, false],
    ['/srv/app/node_modules/express/lib/router/route.js', 'next', 149, false],
    ['/srv/app/node_modules/express/lib/router/route.js', 'Route.dispatch', 119, false],
    ['/srv/app/node_modules/express/lib/router/index.js', 'handle', 284, false],
    ['/srv/app/node_modules/express/lib/router/index.js', 'Function.process_params', 346, false],
    ['node:internal/process/task_queues', 'process.processTicksAndRejections', 95, false],
  ] as const
  const now = new Date().toISOString()
  return {
    severity: 'error',
    unhandled: true,
    severity_reason: 'unhandledException',
    context: 'checkout/submit',
    grouping_hash: null,
    app_version: '1.3.2',
    release_stage: 'production',
    os_version: '6.1.0-18-amd64',
    user_id: 'user-42',
    exceptions: [
      {
        class: 'TypeError3',
        message: 'checkout failed for order ord_93: upstream answered 503 after 3 retries',
        type: 'nodejs',
        stacktrace: frames.map(([file, method, line, inProject], index) => ({
          file,
          method,
          line,
          column: 17,
          in_project: inProject,
          code:
            index === 0
              ? {
                  '41': '  const order = await orders.load(request.params.orderId)',
                  '42': "  const response = await withRetry(() => upstream.post('/checkout', order), { attempts: 3 })",
                  '43': '  if (!response.ok) throw new UpstreamError(response.status)',
                  '44': '  return response.json()',
                }
              : null,
        })),
      },
    ],
    meta_data: {
      company: { name: 'Customer 2', plan: 'enterprise' },
      order: { id: 'ord_93', total: 45.5, currency: 'EUR', items: 3 },
      upstream: { service: 'checkout-api', region: 'eu-west-1', status: 503, attempts: 3, timeoutMs: 10000 },
    },
    user: { id: 'user-42', email: 'user42@example.com', name: 'User 42' },
    app: { releaseStage: 'production', version: '1.3.2', type: 'node', duration: 1803 },
    device: {
      osName: 'linux (x64)',
      osVersion: '6.1.0-18-amd64',
      hostname: 'web-3',
      runtimeVersions: { node: '20.20.2' },
      totalMemory: 25276502016,
      freeMemory: 18453746688,
      time: now,
    },
    request: {
      url: 'https://shop.example.com/api/checkout/3',
      httpMethod: 'POST',
      clientIp: '10.0.3.42',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36' },
    },
    breadcrumbs: [
      { timestamp: now, name: 'GET /checkout', type: 'navigation', meta_data: { status: 200, durationMs: 31 } },
      { timestamp: now, name: 'User clicked submit', type: 'user', meta_data: { target: 'button#submit', cartItems: 3 } },
      { timestamp: now, name: 'POST /api/checkout', type: 'request', meta_data: { status: 503, durationMs: 30012 } },
      { timestamp: now, name: 'retrying upstream call', type: 'log', meta_data: { attempt: 2, backoffMs: 200 } },
      { timestamp: now, name: 'retrying upstream call', type: 'log', meta_data: { attempt: 3, backoffMs: 400 } },
      { timestamp: now, name: 'giving up', type: 'manual', meta_data: {} },
    ],
    feature_flags: [
      { name: 'checkout-v2', variant: 'treatment' },
      { name: 'dark-mode', variant: null },
      { name: 'new-pricing', variant: 'v3' },
    ],
    threads: [],
    session: { id: 'session-93', startedAt: now, events: { handled: 0, unhandled: 1 } },
    notifier: { name: 'Bugsnag Node', version: '9.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
  }
}

// 24-hex ids shaped like server/db/ids.ts (4 bytes of epoch seconds first), unique by construction.
const hexId = (seconds: SQL, index: SQL) => sql`lpad(to_hex(${seconds}), 8, '0') || lpad(to_hex(${index}), 16, '0')`

/**
 * Seeds `errors` error groups and `events` events (event i belongs to error i mod errors), with
 * event_payloads rows, error_users and the errors' counters, first/last seen and latest event consistent.
 */
export async function seedProjectData(db: Db, options: SeedOptions): Promise<{ payloadBytes: number }> {
  const { projectId, errors: errorCount, events: eventCount } = options
  const days = options.days ?? 30
  const payload = encodeEventPayload(samplePayload())
  const startSeconds = Math.floor(Date.now() / 1000) - days * 86400
  const stepSeconds = (days * 86400) / eventCount

  // Error ids use the seed start minus one second as their time prefix; events use their own received_at.
  await db.execute(sql`
    INSERT INTO errors (id, project_id, grouping_hash, grouping_reason, error_class, message, context, severity, unhandled, status,
                        first_seen, last_seen, events_count, users_count, release_stages, app_versions)
    SELECT ${hexId(sql`${startSeconds - 1}::bigint`, sql`g`)},
           ${projectId},
           md5('bench-' || g),
           'in_project_frame',
           'BenchError' || (g % 50),
           'bench failure #' || g || ': upstream answered 503 after 3 retries',
           'module-' || (g % 40) || '/submit',
           (ARRAY['error','warning','info'])[1 + g % 3],
           g % 4 = 0,
           (ARRAY['open','open','open','fixed','ignored'])[1 + g % 5],
           now(), now(), 0, 0,
           ARRAY['production'], ARRAY['1.0.0']
    FROM generate_series(0, ${errorCount - 1}) AS g`)

  await db.execute(sql`
    INSERT INTO events (id, project_id, error_id, received_at, severity, unhandled, error_class, message, context,
                        release_stage, app_version, os_name, os_version, browser_name, device_model,
                        user_id, user_email, user_name, request_url)
    SELECT ${hexId(sql`floor(${startSeconds} + g * ${stepSeconds}::float8)::bigint`, sql`g`)},
           ${projectId},
           ${hexId(sql`${startSeconds - 1}::bigint`, sql`(g % ${errorCount})`)},
           to_timestamp(${startSeconds} + g * ${stepSeconds}::float8),
           (ARRAY['error','warning','info'])[1 + (g % ${errorCount}) % 3],
           (g % ${errorCount}) % 4 = 0,
           'BenchError' || ((g % ${errorCount}) % 50),
           'bench failure #' || (g % ${errorCount}) || ': upstream answered 503 after 3 retries',
           'module-' || ((g % ${errorCount}) % 40) || '/submit',
           (ARRAY['production','staging'])[1 + g % 2],
           '1.' || (g % 4) || '.' || (g % 7),
           'linux', '6.1.0-18-amd64', NULL, NULL,
           'user-' || (g % 4999),
           'user' || (g % 4999) || '@example.com',
           'User ' || (g % 4999),
           'https://shop.example.com/api/module-' || (g % 40)
    FROM generate_series(0, ${eventCount - 1}) AS g`)

  await db.execute(sql`
    INSERT INTO event_payloads (event_id, payload)
    SELECT id, ${payload}::bytea FROM events WHERE project_id = ${projectId}`)

  await db.execute(sql`
    INSERT INTO error_users (error_id, user_key)
    SELECT DISTINCT error_id, user_id FROM events WHERE project_id = ${projectId}`)

  await db.execute(sql`
    UPDATE errors SET first_seen = s.first_seen, last_seen = s.last_seen, events_count = s.n, users_count = s.users,
                      last_event_id = s.last_id,
                      release_stages = s.stages, app_versions = s.versions
    FROM (SELECT error_id, min(received_at) AS first_seen, max(received_at) AS last_seen, count(*) AS n,
                 count(DISTINCT user_id) AS users, max(id) AS last_id,
                 array_agg(DISTINCT release_stage) AS stages, array_agg(DISTINCT app_version) AS versions
          FROM events WHERE project_id = ${projectId} GROUP BY error_id) AS s
    WHERE errors.id = s.error_id`)

  // Planner statistics, as auto-analyze keeps them on PostgreSQL. VACUUM only when asked: PostgreSQL's
  // autovacuum does it soon after a bulk insert, but PGlite runs no autovacuum at all.
  const maintenance = options.vacuum ? sql.raw('VACUUM ANALYZE') : sql.raw('ANALYZE')
  for (const table of ['errors', 'events', 'event_payloads', 'error_users']) {
    await db.execute(sql`${maintenance} ${sql.identifier(table)}`)
  }
  return { payloadBytes: payload.length }
}

export async function countRows(db: Db, table: 'events' | 'errors' | 'event_payloads', projectId: string): Promise<number> {
  const column = table === 'event_payloads' ? sql`event_id IN (SELECT id FROM events WHERE project_id = ${projectId})` : sql`project_id = ${projectId}`
  const rows = await queryRows<{ n: number | string }>(db, sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE ${column}`)
  return Number(rows[0]?.n ?? 0)
}
