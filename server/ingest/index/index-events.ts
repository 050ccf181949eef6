import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import type { IndexableEvent } from '../payload/event-row.ts'
import { applyRateLimits } from '../../rate-limits/rate-limit-step.ts'
import { prepareIngestTriggers, queueIngestTriggers } from '../../webhooks/triggers/ingest-triggers.ts'
import { queueRateLimitTriggers } from '../../webhooks/triggers/rate-limit-triggers.ts'
import { redirectMergedGroups } from './merged-groups.ts'
import { writeEvents } from './write-events.ts'
import { writeCodeSnippets } from '../../events/stored-frames.ts'
import { queueIngestAlerts } from '../../notifications/ingest-alerts.ts'

// The payloads travel as they were serialized, joined by U+0001, which JSON text never holds
// raw (JSON.stringify escapes every control character): split, not parsed, by the database.
const SEPARATOR = '\u0001'

/**
 * The index stage for one batch, inside the caller's transaction (which holds the batch's
 * project write locks): events of merged groups redirected to the error they are merged into
 * (merged-groups.ts), rate limiting (server/rate-limits/: events above a project's quota
 * are sampled, the dropped ones counted and not indexed), then errors, events, users, counters
 * and rollups (write-events.ts), then each event's normalized payload, written once, into
 * event_payloads, with the code snippets its mapped frames refer to (stored-frames.ts); then the
 * webhook triggers the batch fires (the rate-limit ones last) and the email alerts it raises
 * (server/notifications/), queued in the same transaction.
 */
export async function indexEvents(tx: Db, received: readonly IndexableEvent[]): Promise<void> {
  if (received.length === 0) return
  // Events of groups merged into another error are that error's from here on.
  const batch = await redirectMergedGroups(tx, received)
  const limited = await applyRateLimits(tx, batch)
  await writeKept(tx, limited.kept)
  await queueRateLimitTriggers(tx, limited.notices)
}

async function writeKept(tx: Db, events: readonly IndexableEvent[]): Promise<void> {
  if (events.length === 0) return
  const triggers = await prepareIngestTriggers(tx, events)
  const outcome = await writeEvents(tx, events)
  // Events of discarded errors were counted, not stored: their payloads go too, and they fire nothing.
  const stored = outcome.kept ? events.filter((e) => outcome.kept!.has(e.id)) : events
  if (stored.length === 0) return
  await tx.execute(sql`
    INSERT INTO event_payloads (event_id, payload)
    SELECT id, convert_to(payload, 'UTF8')
    FROM unnest(string_to_array(${stored.map((e) => e.id).join(SEPARATOR)}, ${SEPARATOR}),
                string_to_array(${stored.map((e) => e.payloadJson).join(SEPARATOR)}, ${SEPARATOR})) AS x(id, payload)`)
  await writeCodeSnippets(
    tx,
    stored.flatMap((e) => (e.codeSnippets ? [{ projectId: e.projectId, receivedAt: e.receivedAt, snippets: e.codeSnippets }] : [])),
  )
  await queueIngestTriggers(tx, stored, outcome, triggers)
  await queueIngestAlerts(tx, stored, outcome, new Date())
}
