import type { Logger } from 'pino'
import type { Database } from '../db/client.ts'

export interface IngestWriter {
  close(): Promise<void>
}

export function createIngestWriter(
  _database: Database,
  _options: { batchSize: number; flushMs: number },
  _logger: Logger,
): IngestWriter {
  return { close: async () => {} }
}
