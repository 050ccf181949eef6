// Processing runs untrusted payloads through parsers and symbolicators. Should one of them end
// the process anyway (out of memory, a crash in a native module), the batch would be read and
// processed again at every restart and end it again. So each batch is noted in ingest_attempts
// while it is processed (one upsert before, one delete after); a note left by a process that is
// no longer running names a batch that ended it: that batch is then processed one request at a
// time, and a request that ended a process twice while processed alone is set aside.
import { randomInt } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database } from '../../db/client.ts'
import type { AcceptedRequest } from '../payload/accepted-request.ts'

export interface AttemptGuard {
  /**
   * Notes that a batch of `size` requests starting with `request` is being processed. Answers
   * 'set aside' for a request that ended two processes while it was processed alone; throws
   * BatchEndedAProcessError for a batch of several whose processing ended a process, which the
   * log sources then process one request at a time (as any batch that fails).
   */
  begin(request: AcceptedRequest, size: number): Promise<'process' | 'set aside'>
  /** The batch was processed (or failed without ending the process). */
  end(request: AcceptedRequest): Promise<void>
  close(): Promise<void>
}

export class BatchEndedAProcessError extends Error {
  constructor() {
    super('processing this batch ended the process that ran it; its requests are processed one at a time')
  }
}

/** What identifies a request across restarts: its first event id, made when it was accepted. */
const keyOf = (request: AcceptedRequest) => request.eventIds[0] ?? `${request.projectId}@${request.receivedAt.toISOString()}`

/** A request is set aside once processing it alone has ended this many processes. */
const SET_ASIDE_AFTER = 2

/** Notes older than this are another run's leftovers whatever their owner (a batch never takes a day). */
const FORGET_AFTER = '1 day'

/**
 * The guard of this process. Where no other process shares the database (PGlite), any other
 * owner's note is a dead run's. Where processes share it (PostgreSQL), each holds a session advisory lock on its own key for as
 * long as it runs (one pooled connection), and a note's owner is alive while its lock is held.
 */
export async function createAttemptGuard(database: Database, logger: Logger): Promise<AttemptGuard> {
  const { db } = database
  // A random key of the bigint advisory-lock space, in the safe-integer range.
  const owner = randomInt(2 ** 47) * 64 + randomInt(64)
  let releaseLiveness: (() => void) | null = null
  let held: Promise<unknown> = Promise.resolve()
  if (database.sharedByProcesses) {
    const locked = new Promise<void>((resolve, reject) => {
      held = database
        .withExclusiveLock(owner, () => {
          resolve()
          return new Promise<void>((release) => (releaseLiveness = release))
        })
        .catch((err: unknown) => {
          reject(err)
          logger.warn({ err }, 'lost the connection that tells other processes this one is processing')
        })
    })
    await locked
  }
  await db.execute(sql`DELETE FROM ingest_attempts WHERE started_at < now() - ${FORGET_AFTER}::interval`)

  async function alive(other: number): Promise<boolean> {
    if (!database.sharedByProcesses) return false
    const [row] = await queryRows<{ alive: boolean }>(
      db,
      sql`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted
        AND ((classid::bigint << 32) | objid::bigint) = ${other}::bigint) AS alive`,
    )
    return row?.alive === true
  }

  return {
    async begin(request, size) {
      const key = keyOf(request)
      const inserted = await queryRows<{ one: number }>(
        db,
        sql`INSERT INTO ingest_attempts (request_key, batch_size, owner) VALUES (${key}, ${size}, ${owner}::bigint)
          ON CONFLICT (request_key) DO NOTHING RETURNING 1 AS one`,
      )
      if (inserted.length > 0) return 'process'
      const [earlier] = await queryRows<{ batch_size: number; owner: number | string; crashes: number }>(
        db,
        sql`SELECT batch_size, owner, crashes FROM ingest_attempts WHERE request_key = ${key}`,
      )
      const earlierOwner = Number(earlier?.owner)
      // Not a dead process's note: this process's own, gone meanwhile, or a live process's
      // processing the same rows at the same time (PostgreSQL: the loser's work is dropped).
      const ended = earlier !== undefined && earlierOwner !== owner && !(await alive(earlierOwner))
      if (ended && size > 1) throw new BatchEndedAProcessError()
      // Alone, once more: a process killed by an operator at that moment must not lose a request.
      const crashes = ended && earlier.batch_size === 1 ? earlier.crashes + 1 : 0
      if (crashes >= SET_ASIDE_AFTER) {
        logger.error({ projectId: request.projectId, eventIds: request.eventIds, crashes }, 'an accepted request ended the processes that processed it; it is set aside')
        await db.execute(sql`DELETE FROM ingest_attempts WHERE request_key = ${key}`)
        return 'set aside'
      }
      await db.execute(
        sql`INSERT INTO ingest_attempts (request_key, batch_size, owner, crashes) VALUES (${key}, ${size}, ${owner}::bigint, ${crashes})
          ON CONFLICT (request_key) DO UPDATE SET batch_size = EXCLUDED.batch_size, owner = EXCLUDED.owner, crashes = EXCLUDED.crashes, started_at = now()`,
      )
      return 'process'
    },
    async end(request) {
      await db.execute(sql`DELETE FROM ingest_attempts WHERE request_key = ${keyOf(request)} AND owner = ${owner}::bigint`)
    },
    async close() {
      ;(releaseLiveness as (() => void) | null)?.()
      await held
    },
  }
}
