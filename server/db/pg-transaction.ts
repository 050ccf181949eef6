// drizzle-orm 0.45's node-postgres transactions take a connection from the pool and send BEGIN
// before their try/finally: when BEGIN fails (a connection PostgreSQL closed during a restart
// or a network cut, not yet noticed by the pool), the connection is never released. After as
// many failures as the pool has connections, every request waits for a connection until it
// times out, though PostgreSQL is fine. The same transaction, with BEGIN inside the try and a
// connection that failed handed back as broken, so the pool closes it instead of reusing it.
import { sql } from 'drizzle-orm'
import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres'
import type { PoolClient } from 'pg'
import pg from 'pg'
import { isDatabaseUnavailable } from './pg-errors.ts'

/** What this needs of drizzle's session and transaction objects (not part of their typed API). */
interface SessionInternals {
  client: pg.Pool | PoolClient
  dialect: unknown
  schema: unknown
  options: unknown
}
interface TransactionInternals {
  execute(query: ReturnType<typeof sql>): Promise<unknown>
  getTransactionConfigSQL(config: unknown): ReturnType<typeof sql>
}
type Run = (tx: unknown) => Promise<unknown>

let installed = false

/** Replaces NodePgSession#transaction for every node-postgres database of this process. */
export function installPgTransactionFix(): void {
  if (installed) return
  installed = true
  const fixed = async function transaction(this: SessionInternals, run: Run, config?: unknown): Promise<unknown> {
    const pool = this.client instanceof pg.Pool ? this.client : null
    const connection = pool ? await pool.connect() : null
    const Session = NodePgSession as unknown as new (client: unknown, dialect: unknown, schema: unknown, options: unknown) => unknown
    const Transaction = NodePgTransaction as unknown as new (dialect: unknown, session: unknown, schema: unknown) => TransactionInternals
    const session = connection ? new Session(connection, this.dialect, this.schema, this.options) : this
    const tx = new Transaction(this.dialect, session, this.schema)
    let broken: Error | undefined
    try {
      await tx.execute(sql`begin${config ? sql` ${tx.getTransactionConfigSQL(config)}` : undefined}`)
      try {
        const result = await run(tx)
        await tx.execute(sql`commit`)
        return result
      } catch (err) {
        // A connection that cannot roll back is in an unknown state: never reuse it.
        await tx.execute(sql`rollback`).catch((rollbackFailed: unknown) => {
          broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed))
        })
        throw err
      }
    } catch (err) {
      if (isDatabaseUnavailable(err)) broken = err as Error
      throw err
    } finally {
      connection?.release(broken)
    }
  }
  NodePgSession.prototype.transaction = fixed as unknown as NodePgSession<Record<string, unknown>, never>['transaction']
}
