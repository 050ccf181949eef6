// A deletion's steps on PGlite's thread (Database.loadThreadPlugin): each step's transaction
// runs beside the engine's only connection without waiting for the main thread between its
// statements, so it holds the connection no longer than its own work (see DeletionStep).
import type { Database, ThreadPluginHandler } from '../db/client.ts'
import { runDeletionStep, type DeletionStep } from './delete-events.ts'

export function attach(database: Database): ThreadPluginHandler {
  return { handle: (request) => runDeletionStep(database.db, request as DeletionStep), close: async () => {} }
}
