import { sql } from 'drizzle-orm'
import { queryRows, withTransaction, type Db } from './client.ts'
import { textArrayLiteral } from './text-array.ts'

/**
 * One writer per project at a time, across every Errata process on a database.
 *
 * Indexing, status changes, deletions of events, errors and projects all update the same
 * rows of a project (its errors' counters, the rollups, the queue), each in its own order,
 * and two of them at once could deadlock (found with three processes indexing a snoozed
 * error while it was being triaged). A transaction-scoped advisory lock per project makes
 * them take turns instead. Requests block on it; the indexer only tries it and leaves a busy
 * project's events for its next pass, so it never waits while holding queue rows, which is
 * what a project deletion waits for.
 *
 * Lock order: a transaction takes the project locks it needs before any row lock it may wait
 * for (errors, collaborators, invitations, …), so a row holder never waits for a project lock
 * held by someone waiting for that row. Deleting a project or an organization takes them first;
 * so do changes to collaborators (collaborators.service.ts, lockAsAdmin).
 *
 * The two-integer key space of advisory locks is separate from the one-bigint keys that
 * migrations and the first-admin bootstrap use. Projects whose ids hash alike share a lock,
 * which only makes them take turns. PGlite is one connection: there the locks are always free.
 */
const PROJECT_LOCK_CLASS = 7_245_010

/** Runs `fn` in a transaction that first takes the project's write lock. */
export function writingProject<T>(db: Db, projectId: string, fn: (tx: Db) => Promise<T>): Promise<T> {
  return withTransaction(db, async (tx) => {
    await lockProject(tx, projectId)
    return fn(tx)
  })
}

/** Waits for the project's write lock, held until the transaction ends. */
async function lockProject(tx: Db, projectId: string): Promise<void> {
  // The key computed where it is used: one statement, not two (lockProjects), in every write.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${PROJECT_LOCK_CLASS}, hashtext(${projectId}))`)
}

/**
 * Waits for the write locks of several projects (an organization's, a member's), one at a time
 * in the order of their lock keys, so that two transactions locking overlapping sets cannot
 * deadlock (ids that hash alike share a key).
 */
export async function lockProjects(tx: Db, projectIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(projectIds)]
  if (ids.length === 0) return
  const keys = await queryRows<{ key: number }>(
    tx,
    sql`SELECT DISTINCT hashtext(id) AS key FROM unnest(${textArrayLiteral(ids)}::text[]) AS id ORDER BY key`,
  )
  for (const { key } of keys) await tx.execute(sql`SELECT pg_advisory_xact_lock(${PROJECT_LOCK_CLASS}, ${key}::int)`)
}

/** Takes the write locks of the projects that are free now; returns those taken. */
export async function tryLockProjects(tx: Db, projectIds: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(projectIds)].sort()
  if (ids.length === 0) return new Set()
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`SELECT id FROM unnest(${textArrayLiteral(ids)}::text[]) AS id
      WHERE pg_try_advisory_xact_lock(${PROJECT_LOCK_CLASS}, hashtext(id))`,
  )
  return new Set(rows.map((row) => row.id))
}
