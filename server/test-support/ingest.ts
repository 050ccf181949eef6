import { prepareEvents } from '../ingest/process/normalize.ts'
import { notifyPayloadSchema } from '../ingest/accept/payload-schema.ts'
import type { TestContext } from './test-app.ts'

/** A minimal valid notifier event of `errorClass` (one in-project frame, so the class decides the group). */
export function notifierEvent(errorClass: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    exceptions: [
      {
        errorClass,
        message: `${errorClass} happened`,
        type: 'nodejs',
        stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: 3, columnNumber: 7, inProject: true }],
      },
    ],
    ...extra,
  }
}

/**
 * Stores events through the real ingest path (normalize → group commit writer → indexer,
 * rollups included; indexed before this returns) as if received at the given times, which HTTP ingestion cannot choose.
 */
export async function ingestAt(
  ctx: TestContext,
  projectId: string,
  items: ReadonlyArray<{ at: Date; event: Record<string, unknown> }>,
): Promise<void> {
  for (const item of items) {
    const payload = notifyPayloadSchema.parse({ payloadVersion: '4', events: [item.event] })
    await ctx.deps.ingestWriter.write(prepareEvents(projectId, item.at, payload, null))
  }
  await ctx.deps.ingestWriter.indexed()
}
