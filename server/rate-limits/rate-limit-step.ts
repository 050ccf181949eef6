// Rate limiting in the index step (docs/ingestion.md, "Rate limiting"): for each project of the
// batch with a quota, the batch's events are counted into the project's windows (this minute,
// this UTC day) in project_event_windows, and those the sampling rule (sampling.ts) drops are
// counted there too and not indexed. It runs inside the batch's transaction, which holds the
// project's write lock: the count is shared by every process on the database, advances exactly
// once per event (a batch that fails rolls its count back with it), and a dropped event is
// counted exactly when the batch commits. Not a process stage: process stages run before that
// transaction, where a batch retried after a failure would count twice and two processes could
// read the same count.
import { sql } from 'drizzle-orm'
import { APPROACHING_FRACTION } from '../../contract/rate-limits.ts'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import type { IndexedEvent } from '../ingest/payload/event-row.ts'
import { keptInWindow } from './sampling.ts'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** A sampling episode ends after this long without a dropped event; the next drop starts another. */
export const SAMPLING_EPISODE_GAP_MS = 3_600_000
/** projectApproachingRateLimit fires at most this often per project (spec section 8). */
export const APPROACHING_INTERVAL_MS = 2 * 3_600_000
/** Windows older than this are deleted (the dashboard shows the last 24 hours). */
const KEEP_WINDOWS = '2 days'

type Span = 'minute' | 'day'
const SPAN_MS: Record<Span, number> = { minute: MINUTE_MS, day: DAY_MS }

/** What crossed a line in this batch, for the rate-limit webhook triggers. */
export interface RateLimitNotice {
  projectId: string
  trigger: 'projectSamplingStarted' | 'projectApproachingRateLimit'
  message: string
}

export interface RateLimitOutcome<E> {
  /** The events to index: all of them for projects without a quota. */
  kept: E[]
  notices: RateLimitNotice[]
}

interface Quotas {
  minute: number | null
  day: number | null
}

interface WindowCount {
  span: Span
  startsAt: number
  /** Events of this batch in the window. */
  batch: number
  /** The window's count before this batch. */
  before: number
  dropped: number
}

const windowStart = (at: Date, span: Span) => Math.floor(at.getTime() / SPAN_MS[span]) * SPAN_MS[span]
const windowKey = (span: Span, startsAt: number) => `${span}:${startsAt}`
const SPAN_WORDS: Record<Span, string> = { minute: 'a minute', day: 'a day' }
const formatCount = (n: number) => n.toLocaleString('en-US')
const byTimeThenId = (a: IndexedEvent, b: IndexedEvent) => a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * Applies the projects' quotas to a batch inside its transaction: the events to index, and the
 * rate-limit notices it causes. Projects without a quota cost one indexed read per batch.
 */
export async function applyRateLimits<E extends IndexedEvent>(tx: Db, events: readonly E[]): Promise<RateLimitOutcome<E>> {
  if (events.length === 0) return { kept: [], notices: [] }
  const projectIds = [...new Set(events.map((e) => e.projectId))]
  const limited = await queryRows<{ id: string; events_per_minute: number | null; events_per_day: number | null }>(
    tx,
    sql`SELECT id, events_per_minute, events_per_day FROM projects
      WHERE id = ANY(${textArrayLiteral(projectIds)}::text[]) AND (events_per_minute IS NOT NULL OR events_per_day IS NOT NULL)
      ORDER BY id`,
  )
  if (limited.length === 0) return { kept: [...events], notices: [] }
  const dropped = new Set<string>()
  const notices: RateLimitNotice[] = []
  for (const project of limited) {
    const quotas: Quotas = { minute: project.events_per_minute, day: project.events_per_day }
    const result = await limitProject(tx, project.id, quotas, events.filter((e) => e.projectId === project.id))
    for (const id of result.dropped) dropped.add(id)
    notices.push(...result.notices)
  }
  return { kept: dropped.size === 0 ? [...events] : events.filter((e) => !dropped.has(e.id)), notices }
}

async function limitProject(
  tx: Db,
  projectId: string,
  quotas: Quotas,
  projectEvents: readonly IndexedEvent[],
): Promise<{ dropped: string[]; notices: RateLimitNotice[] }> {
  // Events of discarded errors are counted on their error and never stored: they use no quota.
  const hashes = [...new Set(projectEvents.map((e) => e.grouping.hash))]
  const discarded = new Set(
    (
      await queryRows<{ grouping_hash: string }>(
        tx,
        sql`SELECT grouping_hash FROM errors WHERE project_id = ${projectId} AND discarded_at IS NOT NULL
          AND grouping_hash = ANY(${textArrayLiteral(hashes)}::text[])`,
      )
    ).map((r) => r.grouping_hash),
  )
  const counted = projectEvents.filter((e) => !discarded.has(e.grouping.hash)).sort(byTimeThenId)
  if (counted.length === 0) return { dropped: [], notices: [] }

  // Minute windows are kept even with only a daily quota: they give the last 24 hours' drops.
  const windows = new Map<string, WindowCount>()
  for (const e of counted) {
    for (const span of ['minute', 'day'] as const) {
      const startsAt = windowStart(e.receivedAt, span)
      const key = windowKey(span, startsAt)
      const w = windows.get(key) ?? { span, startsAt, batch: 0, before: 0, dropped: 0 }
      w.batch += 1
      windows.set(key, w)
    }
  }
  const ordered = [...windows.values()].sort((a, b) => (a.span < b.span ? -1 : a.span > b.span ? 1 : a.startsAt - b.startsAt))
  const rows = ordered.map((w) => ({ span: w.span, starts_at: new Date(w.startsAt).toISOString(), events: w.batch }))
  const counts = await queryRows<{ span: Span; starts_at: Date | string; events: number | string; created: boolean }>(
    tx,
    sql`INSERT INTO project_event_windows AS w (project_id, span, starts_at, events)
      SELECT ${projectId}, span, starts_at, events
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(span text, starts_at timestamptz, events bigint)
      ON CONFLICT (project_id, span, starts_at) DO UPDATE SET events = w.events + excluded.events
      RETURNING w.span, w.starts_at, w.events, (w.xmax::text = '0') AS created`,
  )
  let created = false
  for (const row of counts) {
    const w = windows.get(windowKey(row.span, new Date(row.starts_at).getTime()))!
    w.before = Number(row.events) - w.batch
    created ||= row.created
  }

  // Each event's number in its windows, and whether the sampling rule keeps it.
  const position = new Map<string, number>()
  const dropped: IndexedEvent[] = []
  let firstDropSpan: Span | null = null
  const crossings: Array<{ span: Span; at: Date; quota: number; ordinal: number }> = []
  for (const e of counted) {
    let keep = true
    for (const span of ['minute', 'day'] as const) {
      const w = windows.get(windowKey(span, windowStart(e.receivedAt, span)))!
      const ordinal = w.before + (position.get(windowKey(span, w.startsAt)) ?? 0) + 1
      position.set(windowKey(span, w.startsAt), ordinal - w.before)
      const quota = quotas[span]
      if (quota === null) continue
      if (ordinal === Math.ceil(quota * APPROACHING_FRACTION)) crossings.push({ span, at: e.receivedAt, quota, ordinal })
      if (!keptInWindow(ordinal, quota)) {
        if (keep && dropped.length === 0) firstDropSpan = span
        keep = false
      }
    }
    if (!keep) {
      dropped.push(e)
      for (const span of ['minute', 'day'] as const) windows.get(windowKey(span, windowStart(e.receivedAt, span)))!.dropped += 1
    }
  }

  if (dropped.length > 0) {
    const droppedRows = ordered.filter((w) => w.dropped > 0).map((w) => ({ span: w.span, starts_at: new Date(w.startsAt).toISOString(), n: w.dropped }))
    await tx.execute(sql`UPDATE project_event_windows w SET dropped = w.dropped + x.n
      FROM jsonb_to_recordset(${JSON.stringify(droppedRows)}::jsonb) AS x(span text, starts_at timestamptz, n bigint)
      WHERE w.project_id = ${projectId} AND w.span = x.span AND w.starts_at = x.starts_at`)
  }
  if (created) {
    await tx.execute(sql`DELETE FROM project_event_windows WHERE project_id = ${projectId} AND starts_at < now() - ${KEEP_WINDOWS}::interval`)
  }
  const notices =
    dropped.length > 0 || crossings.length > 0 ? await noticesOf(tx, projectId, quotas, dropped, firstDropSpan, crossings) : []
  return { dropped: dropped.map((e) => e.id), notices }
}

/**
 * The notices the batch causes, deduplicated through project_rate_limit_state (its row read locked,
 * in the batch's transaction, so two processes cannot both send one): projectSamplingStarted
 * at the first drop of an episode, projectApproachingRateLimit when a window's count reaches
 * APPROACHING_FRACTION of its quota and it has not fired in the last APPROACHING_INTERVAL_MS.
 */
async function noticesOf(
  tx: Db,
  projectId: string,
  quotas: Quotas,
  dropped: readonly IndexedEvent[],
  firstDropSpan: Span | null,
  crossings: ReadonlyArray<{ span: Span; at: Date; quota: number; ordinal: number }>,
): Promise<RateLimitNotice[]> {
  // The row exists before it is read locked, so that the lock holds even for a project's first
  // notice: dedupe does not depend on the project's write lock alone.
  await tx.execute(sql`INSERT INTO project_rate_limit_state (project_id) VALUES (${projectId}) ON CONFLICT DO NOTHING`)
  const [state] = await queryRows<{ last_dropped_at: Date | string | null; sampling_started_at: Date | string | null; approaching_notified_at: Date | string | null }>(
    tx,
    sql`SELECT last_dropped_at, sampling_started_at, approaching_notified_at FROM project_rate_limit_state
      WHERE project_id = ${projectId} FOR UPDATE`,
  )
  const time = (value: Date | string | null | undefined) => (value === null || value === undefined ? null : new Date(value).getTime())
  let lastDroppedAt = time(state?.last_dropped_at)
  let samplingStartedAt = time(state?.sampling_started_at)
  let approachingAt = time(state?.approaching_notified_at)
  const notices: RateLimitNotice[] = []

  const crossing = crossings[0]
  if (crossing && (approachingAt === null || crossing.at.getTime() - approachingAt >= APPROACHING_INTERVAL_MS)) {
    approachingAt = crossing.at.getTime()
    const window = crossing.span === 'day' ? 'daily' : 'per-minute'
    notices.push({
      projectId,
      trigger: 'projectApproachingRateLimit',
      message: `Project has used ${Math.round(APPROACHING_FRACTION * 100)}% of its ${window} event quota (${formatCount(crossing.ordinal)} of ${formatCount(crossing.quota)} events); events above the quota will be sampled`,
    })
  }
  if (dropped.length > 0) {
    const first = dropped[0]!.receivedAt.getTime()
    if (lastDroppedAt === null || first - lastDroppedAt > SAMPLING_EPISODE_GAP_MS) {
      samplingStartedAt = first
      const span = firstDropSpan ?? 'minute'
      notices.push({
        projectId,
        trigger: 'projectSamplingStarted',
        message: `Project is over its event quota of ${formatCount(quotas[span]!)} events ${SPAN_WORDS[span]}: events are being sampled`,
      })
    }
    lastDroppedAt = Math.max(lastDroppedAt ?? -Infinity, dropped[dropped.length - 1]!.receivedAt.getTime())
  }
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  await tx.execute(sql`INSERT INTO project_rate_limit_state (project_id, last_dropped_at, sampling_started_at, approaching_notified_at)
    VALUES (${projectId}, ${iso(lastDroppedAt)}::timestamptz, ${iso(samplingStartedAt)}::timestamptz, ${iso(approachingAt)}::timestamptz)
    ON CONFLICT (project_id) DO UPDATE SET last_dropped_at = excluded.last_dropped_at,
      sampling_started_at = excluded.sampling_started_at, approaching_notified_at = excluded.approaching_notified_at`)
  return notices
}
