import { configDefaults, defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

/**
 * Server test files that always run on the embedded database, whatever TEST_DATABASE_URL says: the
 * ingest journal (PostgreSQL has none), data-directory handling, backups of the embedded database, and the process tests that start
 * `server/main.ts` on a DATA_DIR. The PostgreSQL run (`.ci/run`) leaves them out instead of repeating
 * them unchanged; `npm test` runs them.
 */
const embeddedDatabaseOnly = [
  'server/ingest/log/journal.test.ts',
  'server/data-dir-permissions.test.ts',
  'server/db/data-dir-lock.test.ts',
  'server/logger.test.ts',
  'test/process/server-process.test.ts',
  'test/process/privacy-crash.test.ts',
  'test/process/webhook-crash.test.ts',
  'test/process/leaked-errors.test.ts',
  'test/process/backup-restore.test.ts',
  'server/backup/backup.test.ts',
  'server/retention/steady-size.test.ts',
]
/** Server test files of what exists only on PostgreSQL (several processes' journals on one database): the PostgreSQL run has them. */
const postgresOnly = ['server/ingest/log/postgres-journals.test.ts']
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)

export default defineConfig({
  test: {
    // Each server test file starts its own PGlite (WASM, ~4 s, memory hungry): two at a time on 2-core machines.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['server/**/*.test.ts', 'contract/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...(onPostgres ? embeddedDatabaseOnly : postgresOnly)],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}'],
          setupFiles: ['./src/test/setup.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
})
