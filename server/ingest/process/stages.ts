// The process stages, in order: the one place a step between normalizing and grouping plugs in
// (source-map and native symbolication, discard rules). Each runs on the pipeline's thread on
// batches of normalized events (process.ts), before the index transaction: per-project rate
// limiting, whose count must advance exactly once with the batch, is in the index step instead
// (server/rate-limits/rate-limit-step.ts).
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/client.ts'
import { createJavaScriptSymbolicator, symbolicatorSettings } from '../../symbolication/javascript.ts'
import { NativeSymbolicator } from '../../symbolication/native.ts'
import type { ProcessStage } from './process.ts'

interface StageDeps {
  database: Database
  logger: Logger
  /** The server's settings, as the pipeline's thread reads them from the environment. */
  config: Config
}

/** JavaScript frames mapped through uploaded (or fetched) source maps (docs/source-maps.md). */
function javaScriptSourceMaps({ database, logger, config }: StageDeps): ProcessStage {
  const symbolicator = createJavaScriptSymbolicator({ database, logger, ...symbolicatorSettings(config) })
  return {
    name: 'javascript source maps',
    async run(events) {
      await symbolicator.symbolicate(
        events.map((staged) => ({ id: staged.event.id, projectId: staged.event.projectId, receivedAt: staged.event.receivedAt, event: staged.event })),
      )
      // Mapped frames group as the developer wrote them: the same crash from two builds is one error.
      for (const staged of events) {
        const status = staged.event.payload.symbolication?.status
        if (status === 'mapped' || status === 'partial') staged.changed = true
      }
    },
    close: () => symbolicator.flushCounts(),
  }
}

/** Native frames (NDK, minidumps) resolved with uploaded symbol files (docs/native.md). */
function nativeSymbols({ database, logger, config }: StageDeps): ProcessStage {
  const symbolicator = new NativeSymbolicator({ database, logger, cacheBytes: config.native.cacheBytes })
  return {
    name: 'native symbols',
    async run(events) {
      const changed = await symbolicator.symbolicate(events.map((staged) => ({ projectId: staged.event.projectId, payload: staged.event.payload })))
      // Symbolicated frames group as the code reads: the same crash from two builds is one error.
      events.forEach((staged, i) => {
        if (changed[i]) staged.changed = true
      })
    },
  }
}

export function processStages(deps: StageDeps): ProcessStage[] {
  return [javaScriptSourceMaps(deps), nativeSymbols(deps)]
}
