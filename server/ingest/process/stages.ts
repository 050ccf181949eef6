// The process stages, in order: the one place a step between normalizing and grouping plugs in
// (source-map and native symbolication, discard rules, sampling). Each runs on the pipeline's
// thread on batches of normalized events (process.ts).
import type { Database } from '../../db/client.ts'
import type { Logger } from 'pino'
import type { ProcessStage } from './process.ts'

export function processStages(_deps: { database: Database; logger: Logger }): ProcessStage[] {
  return []
}
