// The work behind privacy requests, as job handlers (server/jobs): exporting a retrieval's
// events, removing its file when it expires, counting a deletion's events, and deleting them.
// Every handler starts from what the database says, so a run cut off by a crash (or a worker
// presumed dead) is run again from the start without exporting or deleting anything twice:
// an export writes a new file and only the run that still holds the job can commit it; a
// deletion's batches read, under the project's lock, only events that are still there.
import { randomBytes } from 'node:crypto'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Filters } from '../../contract/filters.ts'
import { RETRIEVAL_FILE_DAYS } from '../../contract/privacy.ts'
import { withTransaction, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { eventDataDeletions, eventDataRequests, eventPayloads, events } from '../db/schema.ts'
import { decodeEventPayload, type StoredEventPayload } from '../events/event-payload.ts'
import { resolveStoredFrames } from '../events/stored-frames.ts'
import { enqueueJob, JobDeferredError, wakeJobsWhere, type JobContext, type JobHandler } from '../jobs/jobs.ts'
import { nextBatchSize } from './batch-size.ts'
import { finishDeletedEvents, type BatchResult } from './delete-events.ts'
import type { PrivacyDeps } from './privacy-deps.ts'
import { PRIVACY_JOBS } from './privacy-job-kinds.ts'
import { countSelected } from './privacy.service.ts'
import {
  afterKey,
  compileSelection,
  projectsInScope,
  selectedEventsWhere,
  type DeletionProgress,
  type EventKey,
  type Scope,
  type ScopeProject,
} from './selection.ts'

const DAY_MS = 86_400_000

const scopeOf = (row: { organizationId: string; projectId: string | null }): Scope => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
})

/**
 * How long a retrieval waits for a deletion running in its scope before it looks again; the
 * deletion's completion makes it due at once (wakeJobsWhere), so this is only a safety net.
 */
const WAIT_FOR_DELETION_MS = 30_000

/** Requests of one scope touch those of another when one covers the other's project. */
const overlaps = (table: typeof eventDataRequests | typeof eventDataDeletions, scope: Scope) =>
  and(
    eq(table.organizationId, scope.organizationId),
    scope.projectId ? sql`(${table.projectId} IS NULL OR ${table.projectId} = ${scope.projectId})` : undefined,
  )

type EventRow = typeof events.$inferSelect

/** What an event's slim row knows, for an event whose payload row is missing. */
function payloadFromRow(row: EventRow): Partial<StoredEventPayload> {
  return {
    severity: row.severity as StoredEventPayload['severity'],
    unhandled: row.unhandled,
    context: row.context,
    app_version: row.appVersion,
    release_stage: row.releaseStage,
    exceptions: [{ class: row.errorClass, message: row.message, type: null, stacktrace: [] }],
    user: { id: row.userId, email: row.userEmail, name: row.userName },
    device: { osName: row.osName, osVersion: row.osVersion, browserName: row.browserName, model: row.deviceModel },
    request: row.requestUrl ? { url: row.requestUrl } : {},
    meta_data: {},
  }
}

/** One line of the output file: the event's identity, then everything stored about it (mapped frames as the API shows them). */
function retrievalLine(project: ScopeProject, row: EventRow, stored: Partial<StoredEventPayload>): string {
  return (
    JSON.stringify({
      event_id: row.id,
      project_id: row.projectId,
      project_name: project.name,
      error_id: row.errorId,
      received_at: row.receivedAt.toISOString(),
      ...stored,
    }) + '\n'
  )
}

/** The payloads of the jobs of a retrieval (event data request) and of a deletion. */
type RequestJob = { requestId: string }
type DeletionJob = { deletionId: string }

/** The privacy jobs' handlers, over the database and the privacy dependencies (privacy-deps.ts). */
class PrivacyJobs {
  private readonly db: Db
  private readonly privacy: PrivacyDeps
  private readonly logger: Logger

  constructor(db: Db, privacy: PrivacyDeps, logger: Logger) {
    this.db = db
    this.privacy = privacy
    this.logger = logger
  }

  handlers(): JobHandler<never>[] {
    const handlers: [JobHandler<RequestJob>, JobHandler<RequestJob>, JobHandler<DeletionJob>, JobHandler<DeletionJob>] = [
      { kind: PRIVACY_JOBS.retrieve, run: (job) => this.retrieve(job), failed: (tx, job) => failRequest(tx, job.payload.requestId, job.error) },
      { kind: PRIVACY_JOBS.expireFile, run: (job) => this.expireFile(job) },
      { kind: PRIVACY_JOBS.countDeletion, run: (job) => this.countDeletion(job), failed: (tx, job) => failDeletion(tx, job.payload.deletionId, job.error) },
      { kind: PRIVACY_JOBS.delete, run: (job) => this.deleteEvents(job), failed: (tx, job) => failDeletion(tx, job.payload.deletionId, job.error) },
    ]
    return handlers as unknown as JobHandler<never>[]
  }

  /** Writes the selected events to a new file; the number of events and the file's size. */
  private async exportEvents(
    row: typeof eventDataRequests.$inferSelect,
    key: string,
    signal: AbortSignal,
  ): Promise<{ total: number; bytes: number }> {
    const compiled = compileSelection({ filters: row.filters as Filters, userId: row.createdBy ?? '', now: row.createdAt })
    const writer = await this.privacy.files.create(row.id, key)
    try {
      let total = 0
      for (const project of await projectsInScope(this.db, scopeOf(row))) {
        let after: EventKey | null = null
        let lastMs = 0
        for (;;) {
          await this.privacy.pace.between(lastMs, signal)
          const started = performance.now()
          // One batch in memory at a time, in (received_at, id) order, whatever the total.
          const rows: { event: EventRow; payload: Buffer | null; at: string }[] = await this.db
            .select({ event: events, payload: eventPayloads.payload, at: sql<string>`${events.receivedAt}::text` })
            .from(events)
            .leftJoin(eventPayloads, eq(eventPayloads.eventId, events.id))
            .where(and(selectedEventsWhere(project.id, compiled, row.createdAt), afterKey(after)))
            .orderBy(asc(events.receivedAt), asc(events.id))
            .limit(this.privacy.batchSize)
          if (rows.length === 0) break
          const payloads = rows.map((r) => (r.payload ? decodeEventPayload(r.payload) : payloadFromRow(r.event)))
          await resolveStoredFrames(this.db, project.id, payloads.filter((p): p is StoredEventPayload => p.exceptions !== undefined))
          await writer.write(rows.map((r, i) => retrievalLine(project, r.event, payloads[i]!)).join(''))
          total += rows.length
          const last = rows[rows.length - 1]!
          after = { at: last.at, id: last.event.id }
          lastMs = performance.now() - started
        }
      }
      return { total, bytes: await writer.finish() }
    } catch (err) {
      await writer.abort().catch(() => undefined)
      throw err
    }
  }

  /**
   * A retrieval does not export while a deletion is deleting in its scope: its file would hold
   * part of what the deletion removes (and lose it when the deletion completes). It waits, off
   * the runner, and runs once the deletion has completed.
   */
  private async waitForDeletionsInScope(tx: Db, row: typeof eventDataRequests.$inferSelect): Promise<void> {
    const [running] = await tx
      .select({ id: eventDataDeletions.id })
      .from(eventDataDeletions)
      .where(and(overlaps(eventDataDeletions, scopeOf(row)), eq(eventDataDeletions.status, 'ACCEPTED')))
      .limit(1)
    if (running) throw new JobDeferredError(WAIT_FOR_DELETION_MS, `waiting for event data deletion ${running.id} to complete`)
  }

  private async retrieve(job: JobContext<RequestJob>): Promise<void> {
    const [row] = await this.db.select().from(eventDataRequests).where(eq(eventDataRequests.id, job.payload.requestId))
    if (!row || row.status !== 'PREPARING') return
    // Events acknowledged before the request are part of it, indexed or not yet.
    await this.privacy.waitForIngestedBefore(row.createdAt, job.signal)
    await this.waitForDeletionsInScope(this.db, row)
    for (let round = 1; ; round++) {
      // Files of runs that were cut off (or lost the job) are of no use.
      await this.privacy.files.removeOthers(row.id, null)
      const startedAt = this.privacy.clock()
      const key = `${row.id}-${job.attempt}-${round}-${randomBytes(4).toString('hex')}`
      // A deletion completing from now on clears this mark: the export then starts again.
      await this.db.update(eventDataRequests).set({ exportStartedAt: startedAt }).where(eq(eventDataRequests.id, row.id))
      const { total, bytes } = await this.exportEvents(row, key, job.signal)
      const completed = await withTransaction(this.db, async (tx) => {
        await job.fence(tx)
        // A deletion accepted while this export ran: export again once it has completed.
        await this.waitForDeletionsInScope(tx, row)
        const [current] = await tx
          .select({ status: eventDataRequests.status, exportStartedAt: eventDataRequests.exportStartedAt })
          .from(eventDataRequests)
          .where(eq(eventDataRequests.id, row.id))
          .for('update')
        if (!current || current.status !== 'PREPARING') return true
        if (current.exportStartedAt?.getTime() !== startedAt.getTime()) return false
        const completedAt = this.privacy.clock()
        const expiresAt = new Date(completedAt.getTime() + RETRIEVAL_FILE_DAYS * DAY_MS)
        await tx
          .update(eventDataRequests)
          .set({ status: 'COMPLETED', total, completedAt, expiresAt, fileKey: key, fileBytes: bytes })
          .where(eq(eventDataRequests.id, row.id))
        await enqueueJob(tx, PRIVACY_JOBS.expireFile, { requestId: row.id }, completedAt, { runAt: expiresAt, key: row.id })
        return true
      }).catch(async (err: unknown) => {
        if (err instanceof JobDeferredError) await this.privacy.files.remove(row.id, key)
        throw err
      })
      if (completed) {
        await this.privacy.files.removeOthers(row.id, key)
        this.logger.info({ request: row.id, events: total, bytes }, 'event data request completed')
        return
      }
      await this.privacy.files.remove(row.id, key)
      this.logger.info({ request: row.id }, 'a deletion completed during the export; exporting again')
      if (round >= 3) throw new Error('deletions kept completing during the export; it will be tried again')
    }
  }

  private async expireFile(job: JobContext<RequestJob>): Promise<void> {
    const [row] = await this.db.select().from(eventDataRequests).where(eq(eventDataRequests.id, job.payload.requestId))
    if (!row) return
    // Made by this request, whatever their key: none outlives its expiry.
    await this.privacy.files.removeOthers(row.id, null)
    await this.db
      .update(eventDataRequests)
      .set({ fileKey: null, fileRemovedAt: this.privacy.clock(), fileRemovedReason: sql`coalesce(${eventDataRequests.fileRemovedReason}, 'expired')` })
      .where(eq(eventDataRequests.id, row.id))
  }

  private async countDeletion(job: JobContext<DeletionJob>): Promise<void> {
    const [row] = await this.db.select().from(eventDataDeletions).where(eq(eventDataDeletions.id, job.payload.deletionId))
    if (!row || row.status !== 'PREPARING') return
    await this.privacy.waitForIngestedBefore(row.createdAt, job.signal)
    const total = await countSelected(this.db, scopeOf(row), {
      filters: row.filters as Filters,
      userId: row.createdBy ?? '',
      now: row.createdAt,
    })
    await withTransaction(this.db, async (tx) => {
      await job.fence(tx)
      const now = this.privacy.clock()
      const preparing = and(eq(eventDataDeletions.id, row.id), eq(eventDataDeletions.status, 'PREPARING'))
      if (!row.skipConfirmation) {
        await tx.update(eventDataDeletions).set({ status: 'AWAITING_CONFIRMATION', total, completedAt: now }).where(preparing)
        return
      }
      const moved = await tx.update(eventDataDeletions).set({ status: 'ACCEPTED', total }).where(preparing).returning({ id: eventDataDeletions.id })
      if (moved.length === 0) return
      const jobId = await enqueueJob(tx, PRIVACY_JOBS.delete, { deletionId: row.id }, now, { key: row.id })
      await tx.update(eventDataDeletions).set({ jobId }).where(eq(eventDataDeletions.id, row.id))
    })
    this.privacy.wakeJobs()
  }

  /**
   * Deletes the selected events of each project received before `before`, batch by batch, in pass
   * `from.pass`; from where `from` stands (each batch records its position with its events).
   */
  private async deletePass(
    row: typeof eventDataDeletions.$inferSelect,
    projects: ScopeProject[],
    before: Date,
    from: DeletionProgress & { pass: 1 | 2 },
    signal: AbortSignal,
  ) {
    const selection = { filters: row.filters as Filters, userId: row.createdBy ?? '', now: row.createdAt.toISOString() }
    // A contradiction in the filters fails here, before the first batch.
    compileSelection({ ...selection, now: row.createdAt })
    for (const project of projects) {
      if (from.projectId && project.id < from.projectId) continue
      let after: EventKey | null = (project.id === from.projectId && from.after) || null
      // Small first, then sized by time: a first batch of the full size held PGlite for seconds
      // (on every resumption of the job too).
      let size = Math.min(this.privacy.pace.minBatch, this.privacy.batchSize)
      for (;;) {
        signal.throwIfAborted()
        const started = performance.now()
        const batch: BatchResult = await this.privacy.runDeletionStep({
          kind: 'batch',
          deletionId: row.id,
          projectId: project.id,
          selection,
          before: before.toISOString(),
          after,
          limit: size,
          pass: from.pass,
        })
        if (batch.deleted === 0) break
        after = batch.last
        const tookMs = performance.now() - started
        size = nextBatchSize(size, batch.deleted, tookMs, this.privacy.batchSize, Math.min(this.privacy.pace.minBatch, this.privacy.batchSize), this.privacy.pace.targetMs)
        await this.privacy.pace.between(tookMs, signal)
      }
    }
  }

  private async recordProgress(deletionId: string, progress: DeletionProgress): Promise<DeletionProgress> {
    await this.db.update(eventDataDeletions).set({ progress }).where(eq(eventDataDeletions.id, deletionId))
    return progress
  }

  private async deleteEvents(job: JobContext<DeletionJob>): Promise<void> {
    const [row] = await this.db.select().from(eventDataDeletions).where(eq(eventDataDeletions.id, job.payload.deletionId))
    if (!row || row.status !== 'ACCEPTED') return
    // Set once: a run after a crash deletes up to the same moment.
    const [bound] = await this.db
      .update(eventDataDeletions)
      .set({ deletingBefore: sql`coalesce(${eventDataDeletions.deletingBefore}, ${this.privacy.clock().toISOString()}::timestamptz)` })
      .where(eq(eventDataDeletions.id, row.id))
      .returning({ before: eventDataDeletions.deletingBefore })
    const before = bound!.before!
    const scope = scopeOf(row)
    const projects = await projectsInScope(this.db, scope)
    // A run after a restart goes on where the last one stood, instead of reading each
    // project's events from the start again (at 1,000,000 events about a second per pass).
    let progress = (row.progress as DeletionProgress | null) ?? { pass: 1 }
    if (progress.pass === 1) {
      await this.deletePass(row, projects, before, { ...progress, pass: 1 }, job.signal)
      progress = await this.recordProgress(row.id, { pass: 2 })
    }
    if (progress.pass === 2) {
      // Events acknowledged before the deletion began but not indexed yet: a last pass once they are.
      await this.privacy.waitForIngestedBefore(before, job.signal)
      await this.deletePass(row, projects, before, { ...progress, pass: 2 }, job.signal)
      await this.recordProgress(row.id, { pass: 3 })
    }
    for (const project of projects) {
      await finishDeletedEvents(this.privacy.runDeletionStep, row.id, project.id, this.privacy.pace.targetMs, (ms) => this.privacy.pace.between(ms, job.signal))
    }

    const removed = await withTransaction(this.db, async (tx) => {
      await job.fence(tx)
      const now = this.privacy.clock()
      // Exports under way may hold deleted events: they start again (this.privacy.retrieve checks this mark).
      // Those that waited for this deletion are due now.
      const waiting = await tx
        .update(eventDataRequests)
        .set({ exportStartedAt: null })
        .where(and(overlaps(eventDataRequests, scope), eq(eventDataRequests.status, 'PREPARING')))
        .returning({ id: eventDataRequests.id })
      if (waiting.length > 0) {
        const ids = textArrayLiteral(waiting.map((w) => w.id))
        await wakeJobsWhere(tx, PRIVACY_JOBS.retrieve, sql`payload->>'requestId' = ANY(${ids}::text[])`, now)
      }
      // Files made before: removed, and their downloads answer 410.
      const files = await tx
        .update(eventDataRequests)
        .set({ fileKey: null, fileRemovedAt: now, fileRemovedReason: 'deleted' })
        .where(and(overlaps(eventDataRequests, scope), eq(eventDataRequests.status, 'COMPLETED'), sql`${eventDataRequests.fileKey} IS NOT NULL`))
        .returning({ id: eventDataRequests.id })
      await tx.execute(sql`DELETE FROM event_data_deletion_work WHERE deletion_id = ${row.id}`)
      await tx
        .update(eventDataDeletions)
        .set({ status: 'COMPLETED', completedAt: now })
        .where(and(eq(eventDataDeletions.id, row.id), eq(eventDataDeletions.status, 'ACCEPTED')))
      return files.map((f) => f.id)
    })
    for (const requestId of removed) await this.privacy.files.removeOthers(requestId, null)
    const [done] = await this.db.select({ deleted: eventDataDeletions.deletedEvents }).from(eventDataDeletions).where(eq(eventDataDeletions.id, row.id))
    this.logger.info({ deletion: row.id, events: done?.deleted, retrievalFilesRemoved: removed.length }, 'event data deletion completed')
  }
}

export function privacyJobHandlers(db: Db, privacy: PrivacyDeps, logger: Logger): JobHandler<never>[] {
  return new PrivacyJobs(db, privacy, logger).handlers()
}

async function failRequest(tx: Db, id: string, error: string): Promise<void> {
  await tx
    .update(eventDataRequests)
    .set({ status: 'FAILED', failure: error })
    .where(and(eq(eventDataRequests.id, id), eq(eventDataRequests.status, 'PREPARING')))
}

async function failDeletion(tx: Db, id: string, error: string): Promise<void> {
  await tx
    .update(eventDataDeletions)
    .set({ status: 'FAILED', failure: error })
    .where(and(eq(eventDataDeletions.id, id), inArray(eventDataDeletions.status, ['PREPARING', 'ACCEPTED'])))
}

/** Removes retrieval files no request points at (see RetrievalFileStore.sweep); at start. */
export async function sweepRetrievalFiles(privacy: PrivacyDeps, logger: Logger): Promise<void> {
  try {
    await privacy.files.sweep()
  } catch (err) {
    logger.warn({ err }, 'removing left-over retrieval files failed')
  }
}

