import { PGlite } from '@electric-sql/pglite'
import { drizzle } from 'drizzle-orm/pglite'
import type { Database, Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { schema } from '../server/db/schema.ts'

/**
 * A migrated in-memory PGlite on the bench's own thread, as a Database: the pipeline's stages
 * measured without the thread hop the server adds (bench/pipeline-stages.ts, bench/webhooks.ts).
 */
export async function openInProcessPglite(): Promise<{ pglite: PGlite; db: Db; database: Database }> {
  const pglite = await PGlite.create()
  const db = drizzle({ client: pglite, schema }) as unknown as Db
  const database = {
    engine: 'pglite',
    db,
    execScript: async (text: string) => void (await pglite.exec(text)),
    withExclusiveLock: async <T>(_key: number, fn: () => Promise<T>) => fn(),
  } as unknown as Database
  await migrate(database)
  return { pglite, db, database }
}
