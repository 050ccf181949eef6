// Retention (docs/operations.md, "Retention"): a recurring sweep deletes the events each project
// keeps no longer, through the privacy deletion's own steps (server/privacy/delete-events.ts), so
// that counters, users, rollups, pivots, trends, payloads and crashed sessions stay exactly what
// the remaining events give; then the uploaded source maps no longer needed.
//
// One sweep at a time whatever the number of processes: the job is keyed (enqueueJob), so at most
// one is queued or running, and a runner claims it alone. A sweep cut off (a crash, a lease lost)
// is simply run again: every batch reads, under the project's lock, only the events still there,
// and the work list left by the cut-off run is finished by the next one.
import { asc, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { queryRows, type Db } from '../db/client.ts'
import { projects } from '../db/schema.ts'
import { enqueueJob, type JobContext, type JobHandler } from '../jobs/jobs.ts'
import { nextBatchSize } from '../privacy/batch-size.ts'
import { finishDeletedEvents, type BatchResult } from '../privacy/delete-events.ts'
import type { PrivacyDeps } from '../privacy/privacy-deps.ts'
import type { EventKey } from '../privacy/selection.ts'

export const RETENTION_JOBS = {
  /** Delete expired events of every project, then source maps no longer needed. */
  sweep: 'retention.sweep',
} as const

/**
 * The deletion id under which the sweep's batches write down what is left to recompute
 * (event_data_deletion_work, per project); it names no privacy deletion.
 */
export const RETENTION_DELETION_ID = 'retention'

const DAY_MS = 86_400_000

export type RetentionSettings = Config['retention']

/** Queues a sweep due at `now`, unless one is queued or running already (then nothing, and null). */
export function enqueueRetentionSweep(db: Db, now: Date): Promise<string | null> {
  return enqueueJob(db, RETENTION_JOBS.sweep, {}, now, { key: 'sweep' })
}

class RetentionSweep {
  constructor(
    private readonly db: Db,
    private readonly privacy: PrivacyDeps,
    private readonly settings: RetentionSettings,
    private readonly logger: Logger,
  ) {}

  async run(job: JobContext<Record<string, never>>): Promise<void> {
    const now = this.privacy.clock()
    const all = await this.db
      .select({ id: projects.id, days: sql<number>`coalesce(${projects.eventRetentionDays}, ${this.settings.defaultDays})`.mapWith(Number) })
      .from(projects)
      .orderBy(asc(projects.id))
    let deleted = 0
    for (const project of all) {
      const before = new Date(now.getTime() - project.days * DAY_MS)
      deleted += await this.expireEvents(project.id, before, now, job.signal)
    }
    const sourceMaps = await this.pruneSourceMaps()
    if (deleted > 0 || sourceMaps > 0) this.logger.info({ events: deleted, sourceMaps }, 'retention: expired data deleted')
  }

  /** Deletes a project's events received before `before`, oldest first, in batches; how many. */
  private async expireEvents(projectId: string, before: Date, now: Date, signal: AbortSignal): Promise<number> {
    // Looked up without the project's lock: most sweeps find nothing to do in most projects.
    const [found] = await queryRows<{ expired: boolean; unfinished: boolean }>(
      this.db,
      sql`SELECT EXISTS (SELECT 1 FROM events WHERE project_id = ${projectId} AND received_at < ${before.toISOString()}::timestamptz) AS expired,
        EXISTS (SELECT 1 FROM event_data_deletion_work WHERE deletion_id = ${RETENTION_DELETION_ID} AND project_id = ${projectId}) AS unfinished`,
    )
    if (!found?.expired && !found?.unfinished) return 0
    const { pace, batchSize } = this.privacy
    const minBatch = Math.min(pace.minBatch, batchSize)
    let deleted = 0
    let after: EventKey | null = null
    // Small first, then sized by time, as a privacy deletion's batches.
    let size = minBatch
    while (found.expired) {
      signal.throwIfAborted()
      const started = performance.now()
      const batch: BatchResult = await this.privacy.runDeletionStep({
        kind: 'batch',
        deletionId: RETENTION_DELETION_ID,
        projectId,
        selection: { filters: {}, userId: '', now: now.toISOString() },
        before: before.toISOString(),
        after,
        limit: size,
        pass: 1,
      })
      if (batch.deleted === 0) break
      deleted += batch.deleted
      after = batch.last
      const tookMs = performance.now() - started
      size = nextBatchSize(size, batch.deleted, tookMs, batchSize, minBatch, pace.targetMs)
      await pace.between(tookMs, signal)
    }
    await finishDeletedEvents(this.privacy.runDeletionStep, RETENTION_DELETION_ID, projectId, pace.targetMs, (ms) => pace.between(ms, signal), {
      keepDecided: true,
    })
    return deleted
  }

  /**
   * Uploaded source maps past the newest `sourceMapsKept` of their minified URL (React Native's:
   * of their platform) that no stored event can use: none of the project's stored events is of
   * their app version (read from the project's rollups; a map uploaded without an app version
   * serves the events without one). Their files go with them.
   */
  private async pruneSourceMaps(): Promise<number> {
    const removed = await queryRows<{ id: string }>(
      this.db,
      sql`DELETE FROM source_maps s USING (
          SELECT id, row_number() OVER (PARTITION BY project_id, kind, minified_url, platform ORDER BY uploaded_at DESC, id DESC) AS n
          FROM source_maps) r
        WHERE s.id = r.id AND r.n > ${this.settings.sourceMapsKept}
          AND NOT EXISTS (SELECT 1 FROM pivot_counts p WHERE p.project_id = s.project_id AND p.error_id = ''
            AND p.field = 'app.version' AND p.value = s.app_version AND p.events > 0)
        RETURNING s.id`,
    )
    return removed.length
  }
}

export function retentionJobHandlers(db: Db, privacy: PrivacyDeps, settings: RetentionSettings, logger: Logger): JobHandler<never>[] {
  const sweep = new RetentionSweep(db, privacy, settings, logger)
  const handler: JobHandler<Record<string, never>> = { kind: RETENTION_JOBS.sweep, run: (job) => sweep.run(job) }
  return [handler as unknown as JobHandler<never>]
}
