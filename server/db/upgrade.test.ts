// Upgrades keep data: each fixture (a small database made at an older schema by
// scripts/make-upgrade-fixture.ts) is loaded into a database migrated to that schema, every
// later migration runs over it, and the data is read back, counted and through the API.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { createToken } from '../auth/tokens.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { openPglite, queryRows, type Database } from './client.ts'
import { listMigrations, migrate } from './migrate.ts'
import { openScratchPostgres } from './scratch-database.ts'

const FIXTURES = fileURLToPath(new URL('./test-fixtures/', import.meta.url))
const fixtures = readdirSync(FIXTURES).filter((name) => /^schema-\d{4}\.sql$/.test(name))

/** An empty database: PGlite in memory, or a new one on the PostgreSQL server of TEST_DATABASE_URL. */
async function emptyDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL
  return serverUrl ? openScratchPostgres(serverUrl, 'errata_upgrade', 5, { migrated: false }) : openPglite()
}

let ctx: TestContext | undefined
let database: Database | undefined
afterEach(async () => {
  // The context closes its database; before there is one, the database alone.
  await (ctx ?? database)?.close()
  ctx = undefined
  database = undefined
})

describe.each(fixtures)('upgrading the database of %s', (fixture) => {
  it('runs every later migration over it and finds its data intact, through the API too', { timeout: 180_000 }, async () => {
    const text = readFileSync(`${FIXTURES}${fixture}`, 'utf8')
    const schema = /^-- schema: (\S+)$/m.exec(text)![1]!
    database = await emptyDatabase()
    expect((await migrate(database, { through: schema })).at(-1)).toBe(schema)
    await database.execScript(text)

    const later = listMigrations().map((migration) => migration.name).filter((name) => name > schema)
    expect(await migrate(database)).toEqual(later)
    ctx = await createTestContext({}, { database })

    // Every table has the rows the fixture gave it ("-- table: count" before its INSERTs).
    const db = database.db
    for (const [, table, count] of text.matchAll(/^-- (\w+): (\d+)$/gm)) {
      const [row] = await queryRows<{ n: number | string }>(db, sql.raw(`SELECT count(*) AS n FROM "${table}"`))
      expect({ table, rows: Number(row!.n) }).toEqual({ table, rows: Number(count) })
    }

    // Read through the API, as the dashboard does.
    const [admin] = await queryRows<{ id: string }>(db, sql`SELECT id FROM users WHERE name = 'Fixture Admin'`)
    const { token } = await createToken(db, admin!.id, 'upgrade test')
    const get = async <T>(path: string) => {
      const response = await ctx!.request(`/api${path}`, { token })
      expect(response.status, path).toBe(200)
      return (await response.json()) as T
    }
    const [organization] = await get<{ id: string; name: string }[]>('/user/organizations')
    expect(organization!.name).toBe('Fixture Org')
    const [project] = await get<{ id: string; name: string; api_key: string }[]>(`/organizations/${organization!.id}/projects`)
    expect(project!.name).toBe('Fixture Shop')

    const errors = await get<{ id: string; error_class: string; events: number; status: string }[]>(`/projects/${project!.id}/errors`)
    // RetryError was merged into TimeoutError: two errors listed.
    expect(errors.map((error) => [error.error_class, error.events, error.status]).sort()).toEqual([
      ['FixtureError', 5, 'open'],
      ['TimeoutError', 2, 'fixed'],
    ])
    const fixtureError = errors.find((error) => error.error_class === 'FixtureError')!
    const events = await get<{ id: string; context: string }[]>(`/errors/${fixtureError.id}/events?full_reports=true`)
    expect(events.map((event) => event.context).sort()).toEqual(['checkout-1', 'checkout-2', 'checkout-3', 'checkout-4', 'checkout-5'])
    const event = await get<{ exceptions: { message: string }[] }>(`/events/${events[0]!.id}`)
    expect(event.exceptions[0]!.message).toBe('FixtureError happened')
    const comments = await get<{ message: string }[]>(`/projects/${project!.id}/errors/${fixtureError.id}/comments`)
    expect(comments.map((comment) => comment.message)).toEqual(['Seen in checkout'])

    expect((await get<{ events_per_day: number }>(`/projects/${project!.id}/rate_limit`)).events_per_day).toBe(7000)
    expect((await get<{ url: string }[]>(`/projects/${project!.id}/webhooks`)).map((hook) => hook.url)).toEqual(['https://93.184.215.14/errata-hook'])
    const members = await get<{ email: string }[]>(`/organizations/${organization!.id}/collaborators`)
    expect(members.length).toBeGreaterThanOrEqual(2)
    expect((await get<{ app_version: string }[]>(`/projects/${project!.id}/source_maps`)).map((map) => map.app_version)).toEqual(['1.0.0'])

    // New events of an old error join it.
    await ingestAt(ctx, project!.id, [{ at: new Date(), event: notifierEvent('FixtureError', { context: 'after-upgrade' }) }])
    expect((await get<{ events: number }>(`/projects/${project!.id}/errors/${fixtureError.id}`)).events).toBe(6)
  })
})
