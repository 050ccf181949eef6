// While the database is down, the background loops (the indexer retrying every second, the job
// runner polling every second, maintenance) say so once per 10 s, not with a stack trace per
// retry: an outage of a few minutes would otherwise bury everything else in the log.
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { tableLog } from './ingest/log/table-log.ts'
import { Indexer } from './ingest/pipeline/indexer.ts'
import { createProcessor } from './ingest/process/process.ts'
import { JobRunner } from './jobs/job-runner.ts'
import { PGLITE_CAPABILITIES } from './db/capabilities.ts'
import type { Database } from './db/client.ts'

/** The database as a client sees it while the server is down: every query and transaction refused. */
function unreachable(): Database & { attempts: number } {
  const down = { attempts: 0 }
  const refused = () => {
    down.attempts += 1
    return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))
  }
  return Object.assign(down, {
    engine: 'pglite' as const,
    ...PGLITE_CAPABILITIES,
    db: { execute: refused, transaction: refused } as unknown as Database['db'],
    execScript: refused,
    startIndexer: () => {
      throw new Error('not used')
    },
    withExclusiveLock: refused,
    close: async () => {},
  })
}

function capture() {
  const lines: string[] = []
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) }
}

/** Resolves once `condition` holds (checked every 10 ms, for up to 10 s). */
const until = (condition: () => boolean) =>
  vi.waitFor(() => {
    if (!condition()) throw new Error('not yet')
  }, { timeout: 10_000, interval: 10 })

describe('logging while the database is down', () => {
  // The wall clock stands still, a minute on from the last test's: each test's retries fall within
  // one 10 s window however slowly a loaded machine runs them (the loops' timers stay real).
  let minute = 0
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.UTC(2026, 0, 1) + ++minute * 60_000)
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('the indexer, retrying many times, says it once', async () => {
    const down = unreachable()
    const { lines, logger } = capture()
    const indexer = new Indexer(down, tableLog(down.db), createProcessor(), { batchSize: 10, lingerMs: 0, retryMs: 5, pollMs: 5, drainMs: 0 }, logger)
    indexer.wake()
    await until(() => down.attempts >= 20)
    await indexer.close().catch(() => undefined)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('the database is unavailable')
  })

  it('the job runner, polling many times, says it once', async () => {
    const { lines, logger } = capture()
    const down = unreachable()
    const runner = new JobRunner({ database: down, logger, handlers: [], pollMs: 5 })
    runner.start()
    await until(() => down.attempts >= 20)
    await runner.stop().catch(() => undefined)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('the database is unavailable')
  })
})
