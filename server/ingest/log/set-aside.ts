// Records that cannot be indexed, even alone, for a reason other than the database being away:
// kept with failed_at and the reason, counted by /healthz, and no longer in the way of the
// others (docs/ingestion.md, "Failures"). Inspect them with SQL; clear failed_at to retry.
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import type { AcceptedRequest } from './record.ts'

/** A journaled request, copied into ingest_log (nothing when its project is gone). */
export async function setAsideRequest(tx: Db, request: AcceptedRequest, failure: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO ingest_log (project_id, received_at, event_ids, user_agent, body, failed_at, failure)
    SELECT id, ${request.receivedAt.toISOString()}::timestamptz, ${`{${request.eventIds.join(',')}}`}::text[],
      ${request.userAgent}, ${request.body.toString('utf8')}, now(), ${failure}
    FROM projects WHERE id = ${request.projectId}`)
}
