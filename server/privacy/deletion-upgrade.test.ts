// Migration 0018: a deletion whose batches ran before batches took deleted events out of the
// project-wide pivot rows gets those rows queued for its finishing step to recompute.
import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { queryRows } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

const MIGRATION = readFileSync(new URL('../db/migrations/0018-deletion-project-pivot-work.sql', import.meta.url), 'utf8')

let ctx: TestContext
let seeded: SeededProject
beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx)
})
afterAll(() => ctx.close())

async function deletion(status: string): Promise<string> {
  const id = newId()
  await ctx.deps.database.db.execute(sql`
    INSERT INTO event_data_deletions (id, organization_id, project_id, status, filters, created_by_email, created_by_name, created_at)
    VALUES (${id}, ${seeded.organization.id}, ${seeded.project.id}, ${status}, '{}'::jsonb, 'admin@example.com', 'Admin', now())`)
  // What the earlier version's batches queued: the errors' pivot rows only.
  await ctx.deps.database.db.execute(sql`
    INSERT INTO event_data_deletion_work (deletion_id, project_id, kind, error_id, field, value)
    VALUES (${id}, ${seeded.project.id}, 'pivot', 'error-1', 'user.email', 'alice@example.com'),
           (${id}, ${seeded.project.id}, 'pivot', 'error-2', 'user.email', 'alice@example.com'),
           (${id}, ${seeded.project.id}, 'pivot', 'error-2', 'app.releaseStage', 'production'),
           (${id}, ${seeded.project.id}, 'error', 'error-2', '', '')`)
  return id
}

const projectRows = (id: string) =>
  queryRows<{ field: string; value: string }>(
    ctx.deps.database.db,
    sql`SELECT field, value FROM event_data_deletion_work WHERE deletion_id = ${id} AND kind = 'pivot' AND error_id = '' ORDER BY field, value`,
  )

it("queues the project-wide row of each value a deleting deletion's errors' rows wait with, once, and leaves other deletions alone", async () => {
  const deleting = await deletion('ACCEPTED')
  const awaiting = await deletion('AWAITING_CONFIRMATION')
  await ctx.deps.database.db.execute(sql.raw(MIGRATION))
  await ctx.deps.database.db.execute(sql.raw(MIGRATION))
  expect(await projectRows(deleting)).toEqual([
    { field: 'app.releaseStage', value: 'production' },
    { field: 'user.email', value: 'alice@example.com' },
  ])
  expect(await projectRows(awaiting)).toEqual([])
})
