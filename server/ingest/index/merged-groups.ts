// Merged errors at ingestion (docs/errors-workflow.md#merging): a group merged into another error
// keeps its row and grouping hash, marked merged_into_id, and its new events go to that error.
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../db/client.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { IndexedEvent } from '../payload/event-row.ts'

/**
 * The batch with each event of a merged group given the grouping hash of the error it is merged
 * into (so every later step counts it there, and no new error is made for it) and its own
 * group's error id in mergedFromId (so unmerging can take it back). One statement per batch, by
 * the (project_id, grouping_hash) index; the caller holds the projects' write locks, so no merge
 * or unmerge happens half-way through a batch.
 */
export async function redirectMergedGroups<E extends IndexedEvent>(tx: Db, batch: readonly E[]): Promise<readonly E[]> {
  const keys = new Map(batch.map((e) => [`${e.projectId}\u0000${e.grouping.hash}`, e]))
  const projects = [...keys.values()].map((e) => e.projectId)
  const hashes = [...keys.values()].map((e) => e.grouping.hash)
  const merged = await queryRows<{ project_id: string; grouping_hash: string; id: string; into_hash: string }>(
    tx,
    sql`SELECT e.project_id, e.grouping_hash, e.id, t.grouping_hash AS into_hash
      FROM unnest(${textArrayLiteral(projects)}::text[], ${textArrayLiteral(hashes)}::text[]) AS k(project_id, grouping_hash)
      JOIN errors e ON e.project_id = k.project_id AND e.grouping_hash = k.grouping_hash
      JOIN errors t ON t.id = e.merged_into_id`,
  )
  if (merged.length === 0) return batch
  const into = new Map(merged.map((row) => [`${row.project_id}\u0000${row.grouping_hash}`, row]))
  return batch.map((event) => {
    const row = into.get(`${event.projectId}\u0000${event.grouping.hash}`)
    return row ? { ...event, grouping: { ...event.grouping, hash: row.into_hash }, mergedFromId: row.id } : event
  })
}
