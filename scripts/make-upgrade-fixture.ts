// Writes server/db/test-fixtures/schema-NNNN.sql: a small Errata database, made through the API
// on the current schema, as plain INSERTs (server/db/upgrade.test.ts loads it into a database
// migrated to that schema, then runs every later migration over it). Made once per schema and
// kept: an older fixture is what later migrations must upgrade.
//
//   node --import tsx scripts/make-upgrade-fixture.ts [--force]
//
// Run it again after a migration is added to keep a fixture of the new schema too (docs/operations.md, "Upgrades").
import { existsSync, writeFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { queryRows } from '../server/db/client.ts'
import { listMigrations } from '../server/db/migrate.ts'
import { ingestAt, notifierEvent } from '../server/test-support/ingest.ts'
import { seedMember, seedProject } from '../server/test-support/seed.ts'
import { readJsApp, uploadForm } from '../server/test-support/source-map-uploads.ts'
import { createTestContext } from '../server/test-support/test-app.ts'

/** Transient tables: the ingest logs and their position, the jobs queue, the upgrades' own record. */
const SKIPPED = new Set(['schema_migrations', 'ingest_log', 'ingest_journals', 'jobs'])

const schema = listMigrations().at(-1)!.name
const file = new URL(`../server/db/test-fixtures/schema-${schema.slice(0, 4)}.sql`, import.meta.url)
if (existsSync(file) && !process.argv.includes('--force')) {
  process.stderr.write(`${file.pathname} exists: the fixture of schema ${schema} is kept as it is (--force makes it anew)\n`)
  process.exit(1)
}

delete process.env.TEST_DATABASE_URL
delete process.env.DATABASE_URL
const ctx = await createTestContext({ webhookAllow: [] })
const expectStatus = async (response: Promise<Response>, status: number) => {
  const answered = await response
  if (answered.status !== status) throw new Error(`${answered.url}: ${answered.status} ${await answered.text()}`)
  return answered.text()
}

// An organization with a project, its admin, a member and an invitation.
const { user, organization, project } = await seedProject(ctx, { user: 'Fixture Admin', organization: 'Fixture Org', project: 'Fixture Shop', type: 'node' })
await seedMember(ctx, organization.id, 'Fixture Member')
await expectStatus(ctx.request(`/api/organizations/${organization.id}/collaborators`, { method: 'POST', token: user.token, json: { email: 'member@example.com', project_ids: [project.id] } }), 201)
await expectStatus(ctx.request(`/api/projects/${project.id}/rate_limit`, { method: 'PATCH', token: user.token, json: { events_per_day: 7000 } }), 200)
await expectStatus(
  ctx.request(`/api/projects/${project.id}/webhooks`, { method: 'POST', token: user.token, json: { url: 'https://93.184.215.14/errata-hook', triggers: ['exception', 'reopened'] } }),
  201,
)
await expectStatus(
  ctx.request('/sourcemap', {
    method: 'POST',
    body: uploadForm({ apiKey: project.api_key, appVersion: '1.0.0', minifiedUrl: 'https://shop.example.com/app.min.js' }, { sourceMap: readJsApp('dist/app.min.js.map') }),
  }),
  200,
)

// Events of three errors over two days (rollups and trends), at fixed times.
const day = (n: number, hour: number) => new Date(Date.UTC(2026, 10, n, hour))
await ingestAt(ctx, project.id, [
  ...[1, 2, 3].map((hour) => ({ at: day(1, hour), event: notifierEvent('FixtureError', { context: `checkout-${hour}`, user: { id: `user-${hour}` }, app: { version: '1.0.0', releaseStage: 'production' } }) })),
  ...[4, 5].map((hour) => ({ at: day(2, hour), event: notifierEvent('FixtureError', { context: `checkout-${hour}`, app: { version: '1.0.1', releaseStage: 'production' } }) })),
  { at: day(2, 6), event: notifierEvent('TimeoutError', { context: 'payment', metaData: { order: { id: 'A-17' } } }) },
  { at: day(2, 7), event: notifierEvent('RetryError', { context: 'payment' }) },
])
const listed = (await (await ctx.request(`/api/projects/${project.id}/errors`, { token: user.token })).json()) as { id: string; error_class: string }[]
const errorOf = (errorClass: string) => listed.find((error) => error.error_class === errorClass)!.id
// A comment, a status, a merge.
await expectStatus(ctx.request(`/api/projects/${project.id}/errors/${errorOf('FixtureError')}/comments`, { method: 'POST', token: user.token, json: { message: 'Seen in checkout' } }), 201)
await expectStatus(ctx.request(`/api/projects/${project.id}/errors/${errorOf('TimeoutError')}`, { method: 'PATCH', token: user.token, json: { operation: 'fix' } }), 200)
const merge = await ctx.request(`/api/projects/${project.id}/errors?error_ids=${errorOf('TimeoutError')}&error_ids=${errorOf('RetryError')}`, { method: 'PATCH', token: user.token, json: { operation: 'merge' } })
if (merge.status >= 300) throw new Error(`merge: ${merge.status} ${await merge.text()}`)

const db = ctx.deps.database.db
const tables = (await queryRows<{ name: string }>(db, sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).map((row) => row.name)
const references = await queryRows<{ child: string; parent: string; column: string }>(
  db,
  sql`SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, a.attname AS column
      FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`,
)
// Parents before children; a table that references itself gets its referencing rows last.
const ordered: string[] = []
const visit = (table: string, path: string[] = []) => {
  if (ordered.includes(table)) return
  if (path.includes(table)) throw new Error(`tables reference each other in a cycle: ${[...path, table].join(' → ')}`)
  for (const ref of references) if (ref.child === table && ref.parent !== table) visit(ref.parent, [...path, table])
  ordered.push(table)
}
for (const table of tables) visit(table)

const lines = [
  `-- An Errata database at schema ${schema}, made by scripts/make-upgrade-fixture.ts: loaded by`,
  '-- server/db/upgrade.test.ts into a database migrated to that schema. Generated: do not edit.',
  `-- schema: ${schema}`,
]
for (const table of ordered.filter((name) => !SKIPPED.has(name))) {
  const columns = await queryRows<{ name: string; serial: boolean }>(
    db,
    sql`SELECT column_name AS name, coalesce(column_default LIKE 'nextval(%', false) AS serial FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = ${table} AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  )
  const names = columns.map((column) => `"${column.name}"`)
  const selfColumns = references.filter((ref) => ref.child === table && ref.parent === table).map((ref) => `"${ref.column}" IS NOT NULL`)
  const rows = await queryRows<{ line: string }>(
    db,
    sql.raw(
      `SELECT 'INSERT INTO "${table}" (${names.join(', ')}) VALUES (' || concat_ws(', ', ${names.map((name) => `quote_nullable(${name})`).join(', ')}) || ');' AS line
       FROM "${table}" ORDER BY ${[...selfColumns, 'line'].join(', ')}`,
    ),
  )
  if (rows.length === 0) continue
  lines.push('', `-- ${table}: ${rows.length}`, ...rows.map((row) => row.line))
  for (const column of columns.filter((c) => c.serial)) {
    lines.push(`SELECT setval(pg_get_serial_sequence('"${table}"', '${column.name}'), (SELECT max("${column.name}") FROM "${table}"));`)
  }
}
writeFileSync(file, `${lines.join('\n')}\n`)
process.stdout.write(`wrote ${file.pathname}\n`)
await ctx.close()
