// Seeding for the triage benchmark: a project with many events spread over many errors the
// way real projects are — a few errors hold most events (error index ~ r³ for uniform r),
// 20,000 users (by default), 20 app versions, three release stages, five OSes, six browsers, 30 days.
// Set-based SQL straight into the schema, then the counters and rollups derived from the
// events, so every number the API reads is consistent with the events table.
import { sql } from 'drizzle-orm'
import type { Db } from '../server/db/client.ts'
import { rebuildRollups } from '../server/rollups/rollups.ts'

export interface TriageSeedOptions {
  projectId: string
  errors: number
  events: number
  /** Distinct users (20,000 at 1,000,000 events; the issue's 10,000,000 have 200,000). */
  users?: number
  days?: number
  vacuum: boolean
  /** PostgreSQL gets more sort memory for the seeding; PGlite's WASM heap stays at its defaults. */
  engine: 'pglite' | 'postgres'
}

// The '7' after the seconds keeps these ids apart from bench/seed.ts's, which start their index with 0.
const hexId = (seconds: string, index: string) => sql.raw(`lpad(to_hex(${seconds}), 8, '0') || '7' || lpad(to_hex(${index}), 15, '0')`)

export async function seedTriageData(
  db: Db,
  options: TriageSeedOptions,
  log: (line: string) => void = () => {},
): Promise<void> {
  let started = performance.now()
  const step = (name: string) => {
    log(`  seeded ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    started = performance.now()
  }
  const { projectId, errors: errorCount, events: eventCount } = options
  const days = options.days ?? 30
  const users = options.users ?? 20_000
  const startSeconds = Math.floor(Date.now() / 1000) - days * 86400
  const stepSeconds = (days * 86400) / eventCount
  // The id prefix keeps these ids apart from other seeded projects' (the index part repeats).
  const prefix = `${startSeconds - 7}`

  await db.execute(sql`
    INSERT INTO errors (id, project_id, grouping_hash, grouping_reason, error_class, message, context, severity, unhandled,
                        status, first_seen, last_seen)
    SELECT ${hexId(prefix, 'g')}, ${projectId}, md5('triage-' || g), 'in_project_frame',
           'TriageError' || (g % 97), 'triage failure #' || g, 'module-' || (g % 40),
           (ARRAY['error','warning','info'])[1 + g % 3], g % 4 = 0,
           (ARRAY['open','open','open','fixed','ignored','snoozed'])[1 + g % 6], now(), now()
    FROM generate_series(0, ${errorCount - 1}) AS g`)
  step('errors')

  // Until the rollups are rebuilt below, the project counts as folded: the server's fold loop
  // would otherwise fold the seeded events while they are seeded (then rebuilt), twice the work
  // and a pivot_counts left with the dead rows of the first pass.
  await db.execute(sql`INSERT INTO rollup_watermarks (project_id, seq) VALUES (${projectId}, 9223372036854775807)
    ON CONFLICT (project_id) DO UPDATE SET seq = excluded.seq`)

  // r = a hash of g spread over [0, 1); error = floor(errors * r³): error 0 is the busiest. Each
  // event carries its error's class and message, so a free-text search finds what it would.
  await db.execute(sql`
    INSERT INTO events (id, project_id, error_id, received_at, severity, unhandled, error_class, message, context,
                        release_stage, app_version, os_name, os_version, browser_name, device_model,
                        user_id, user_email, user_name, request_url)
    SELECT ${hexId(`floor(${startSeconds} + g * ${stepSeconds}::float8)::bigint`, 'g')}, ${projectId},
           ${hexId(prefix, 'e')},
           to_timestamp(${startSeconds} + g * ${stepSeconds}::float8),
           'error', false, 'TriageError' || (e % 97), 'triage failure #' || e, 'module-' || (g % 40),
           (ARRAY['production','production','production','production','staging','development'])[1 + g % 6],
           '1.' || (g % 20), (ARRAY['linux','windows','macos','android','ios'])[1 + g % 5], '10.' || (g % 7),
           (ARRAY['Chrome','Firefox','Safari','Edge','Opera','Samsung Internet'])[1 + g % 6], NULL,
           'user-' || ((g * 7919) % ${users}), 'user' || ((g * 7919) % ${users}) || '@example.com', 'User ' || ((g * 7919) % ${users}),
           'https://shop.example.com/page/' || (g % 500)
    FROM generate_series(0::bigint, ${eventCount - 1}) AS g,
         LATERAL (SELECT floor(${errorCount} * power(((g * 2654435761) % 1000003) / 1000003.0, 3))::bigint AS e) AS picked`)
  step('events')

  await db.execute(sql`
    INSERT INTO error_users (error_id, user_key)
    SELECT DISTINCT error_id, user_id FROM events WHERE project_id = ${projectId}`)
  step('error_users')

  await db.execute(sql`
    UPDATE errors SET first_seen = s.first_seen, last_seen = s.last_seen, events_count = s.n, users_count = s.users,
                      last_event_id = s.last_id, release_stages = s.stages, app_versions = s.versions
    FROM (SELECT error_id, min(received_at) AS first_seen, max(received_at) AS last_seen, count(*) AS n,
                 count(DISTINCT user_id) AS users, max(id) AS last_id,
                 array_agg(DISTINCT release_stage) AS stages, array_agg(DISTINCT app_version) AS versions
          FROM events WHERE project_id = ${projectId} GROUP BY error_id) AS s
    WHERE errors.id = s.error_id`)
  // Errors the skew left without events would never exist in real data.
  await db.execute(sql`DELETE FROM errors WHERE project_id = ${projectId} AND events_count = 0`)
  await db.execute(sql`UPDATE projects SET release_stages = ARRAY['production','staging','development'] WHERE id = ${projectId}`)

  step('error counters')
  // Millions of pivot rows: built without their indexes, which are then created in one sort
  // each (row-by-row index upkeep would take ten times longer on PGlite). Benchmark only.
  // One transaction, so PostgreSQL's settings below hold for all of it (a pool would spread
  // statements over connections): with stock settings (4 MB) the aggregation of millions of
  // rows sorted on disk for over ten minutes.
  await db.transaction(async (tx) => {
    if (options.engine === 'postgres') {
      await tx.execute(sql`SET LOCAL work_mem = '512MB'`)
      await tx.execute(sql`SET LOCAL maintenance_work_mem = '512MB'`)
    }
    await tx.execute(sql`ALTER TABLE pivot_counts DROP CONSTRAINT pivot_counts_pkey`)
    await tx.execute(sql`DROP INDEX pivot_counts_top_idx`)
    await tx.execute(sql`DROP INDEX pivot_counts_value_idx`)
    await tx.execute(sql`DROP INDEX pivot_counts_text_idx`)
    await tx.execute(sql`DROP INDEX pivot_counts_cut_idx`)
    await rebuildRollups(tx as unknown as Db, projectId)
    step('rollups')
    await tx.execute(sql`ALTER TABLE pivot_counts ADD PRIMARY KEY (project_id, error_id, field, value)`)
    await tx.execute(sql`CREATE INDEX pivot_counts_top_idx ON pivot_counts (project_id, error_id, field, events DESC, value)
      WHERE field NOT IN ('event.class', 'event.message', 'user.email', 'user.name') AND value <> ''`)
    await tx.execute(sql`CREATE INDEX pivot_counts_value_idx ON pivot_counts (project_id, field, value, error_id) INCLUDE (last_seen, first_seen, events)`)
    await tx.execute(sql`CREATE INDEX pivot_counts_text_idx ON pivot_counts USING gin (value gin_trgm_ops)
      WHERE field IN ('event.class', 'event.message', 'event.context', 'user.email', 'user.name')`)
    await tx.execute(sql`CREATE INDEX pivot_counts_cut_idx ON pivot_counts (project_id, field, error_id)
      WHERE char_length(value) >= 500 AND field IN ('event.class', 'event.message', 'user.email', 'user.name')`)
    step('rollup indexes')
  })

  const maintenance = sql.raw(options.vacuum ? 'VACUUM ANALYZE' : 'ANALYZE')
  for (const table of ['errors', 'events', 'error_users', 'error_hourly_counts', 'project_hourly_counts', 'pivot_counts']) {
    await db.execute(sql`${maintenance} ${sql.identifier(table)}`)
  }
  step(options.vacuum ? 'VACUUM ANALYZE' : 'ANALYZE')
}
