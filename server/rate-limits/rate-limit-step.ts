// Rate limiting in the index step (docs/ingestion.md, "Rate limiting"): every project's events
// of the batch are counted into its windows (this minute, this UTC day) in project_event_windows,
// quota or not, so the rate-limit panel shows the volume before anyone picks a quota; for a
// project with a quota, those the sampling rule (sampling.ts) drops are counted there too and
// not indexed. It runs inside the batch's transaction, which holds the project's write lock: the
// count is shared by every process on the database, advances exactly once per event (a batch
// that fails rolls its count back with it), and a dropped event is counted exactly when the
// batch commits. Not a process stage: process stages run before that transaction, where a batch
// retried after a failure would count twice and two processes could read the same count.
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
const SPANS = ['minute', 'day'] as const
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
  projectId: string
  span: Span
  startsAt: number
  /** Events of this batch in the window. */
  batch: number
  /** The window's count before this batch. */
  before: number
  dropped: number
}

const windowStart = (at: Date, span: Span) => Math.floor(at.getTime() / SPAN_MS[span]) * SPAN_MS[span]
const windowKey = (projectId: string, span: Span, startsAt: number) => `${projectId}\u0000${span}:${startsAt}`
const eventWindow = (windows: ReadonlyMap<string, WindowCount>, e: IndexedEvent, span: Span) =>
  windows.get(windowKey(e.projectId, span, windowStart(e.receivedAt, span)))!
const SPAN_WORDS: Record<Span, string> = { minute: 'a minute', day: 'a day' }
const formatCount = (n: number) => n.toLocaleString('en-US')
const byTimeThenId = (a: IndexedEvent, b: IndexedEvent) => a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * Counts a batch into its projects' windows and applies their quotas, inside the batch's
 * transaction: the events to index, and the rate-limit notices it causes. A batch costs one
 * indexed read and one upsert of its windows, for all its projects together; only projects with
 * a quota do more (their drops, their notices).
 */
export async function applyRateLimits<E extends IndexedEvent>(tx: Db, events: readonly E[]): Promise<RateLimitOutcome<E>> {
  if (events.length === 0) return { kept: [], notices: [] }
  const projectIds = [...new Set(events.map((e) => e.projectId))]
  const hashes = [...new Set(events.map((e) => e.grouping.hash))]
  // Events of discarded errors are counted on their error and never stored: they use no quota.
  const projects = await queryRows<{ id: string; events_per_minute: number | null; events_per_day: number | null; discarded: string[] | null }>(
    tx,
    sql`SELECT p.id, p.events_per_minute, p.events_per_day,
        (SELECT array_agg(e.grouping_hash) FROM errors e WHERE e.project_id = p.id AND e.discarded_at IS NOT NULL
          AND e.grouping_hash = ANY(${textArrayLiteral(hashes)}::text[])) AS discarded
      FROM projects p WHERE p.id = ANY(${textArrayLiteral(projectIds)}::text[]) ORDER BY p.id`,
  )
  const discarded = new Set(projects.flatMap((p) => (p.discarded ?? []).map((hash) => `${p.id}\u0000${hash}`)))
  const counted = discarded.size === 0 ? events : events.filter((e) => !discarded.has(`${e.projectId}\u0000${e.grouping.hash}`))
  if (counted.length === 0) return { kept: [...events], notices: [] }

  const windows = await countWindows(tx, counted)
  const dropped = new Set<string>()
  const notices: RateLimitNotice[] = []
  for (const project of projects) {
    if (project.events_per_minute === null && project.events_per_day === null) continue
    const quotas: Quotas = { minute: project.events_per_minute, day: project.events_per_day }
    const result = await limitProject(tx, project.id, quotas, counted.filter((e) => e.projectId === project.id), windows)
    for (const id of result.dropped) dropped.add(id)
    notices.push(...result.notices)
  }
  return { kept: dropped.size === 0 ? [...events] : events.filter((e) => !dropped.has(e.id)), notices }
}

/**
 * Adds the counted events to their windows in one upsert for every project of the batch, and
 * returns each window with its count before the batch. Rows are written in key order, so
 * concurrent batches lock them in the same order. A project whose batch opened a new window
 * (about once a minute) has its windows older than KEEP_WINDOWS deleted.
 */
async function countWindows(tx: Db, counted: readonly IndexedEvent[]): Promise<Map<string, WindowCount>> {
  const windows = new Map<string, WindowCount>()
  for (const e of counted) {
    for (const span of SPANS) {
      const startsAt = windowStart(e.receivedAt, span)
      const key = windowKey(e.projectId, span, startsAt)
      const w = windows.get(key)
      if (w) w.batch += 1
      else windows.set(key, { projectId: e.projectId, span, startsAt, batch: 1, before: 0, dropped: 0 })
    }
  }
  const rows = [...windows.values()]
    .sort((a, b) => (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : a.span < b.span ? -1 : a.span > b.span ? 1 : a.startsAt - b.startsAt))
    .map((w) => ({ project_id: w.projectId, span: w.span, starts_at: new Date(w.startsAt).toISOString(), events: w.batch }))
  const counts = await queryRows<{ project_id: string; span: Span; starts_at: Date | string; events: number | string; created: boolean }>(
    tx,
    sql`INSERT INTO project_event_windows AS w (project_id, span, starts_at, events)
      SELECT project_id, span, starts_at, events
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(project_id text, span text, starts_at timestamptz, events bigint)
      ON CONFLICT (project_id, span, starts_at) DO UPDATE SET events = w.events + excluded.events
      RETURNING w.project_id, w.span, w.starts_at, w.events, (w.xmax::text = '0') AS created`,
  )
  const opened = new Set<string>()
  for (const row of counts) {
    const w = windows.get(windowKey(row.project_id, row.span, new Date(row.starts_at).getTime()))!
    w.before = Number(row.events) - w.batch
    if (row.created) opened.add(row.project_id)
  }
  if (opened.size > 0) {
    await tx.execute(sql`DELETE FROM project_event_windows
      WHERE project_id = ANY(${textArrayLiteral([...opened].sort())}::text[]) AND starts_at < now() - ${KEEP_WINDOWS}::interval`)
  }
  return windows
}

/** Samples one project's counted events of the batch against its quotas; its windows are counted already. */
async function limitProject(
  tx: Db,
  projectId: string,
  quotas: Quotas,
  projectEvents: readonly IndexedEvent[],
  windows: ReadonlyMap<string, WindowCount>,
): Promise<{ dropped: string[]; notices: RateLimitNotice[] }> {
  const counted = [...projectEvents].sort(byTimeThenId)
  // Each event's number in its windows, and whether the sampling rule keeps it.
  const position = new Map<WindowCount, number>()
  const dropped: IndexedEvent[] = []
  let firstDropSpan: Span | null = null
  const crossings: Array<{ span: Span; at: Date; quota: number; ordinal: number }> = []
  for (const e of counted) {
    let keep = true
    for (const span of SPANS) {
      const w = eventWindow(windows, e, span)
      const inBatch = (position.get(w) ?? 0) + 1
      position.set(w, inBatch)
      const ordinal = w.before + inBatch
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
      for (const span of SPANS) eventWindow(windows, e, span).dropped += 1
    }
  }

  if (dropped.length > 0) {
    // Minute windows are counted even with only a daily quota: they give the last 24 hours' drops.
    const droppedRows = [...windows.values()]
      .filter((w) => w.projectId === projectId && w.dropped > 0)
      .sort((a, b) => (a.span < b.span ? -1 : a.span > b.span ? 1 : a.startsAt - b.startsAt))
      .map((w) => ({ span: w.span, starts_at: new Date(w.startsAt).toISOString(), n: w.dropped }))
    await tx.execute(sql`UPDATE project_event_windows w SET dropped = w.dropped + x.n
      FROM jsonb_to_recordset(${JSON.stringify(droppedRows)}::jsonb) AS x(span text, starts_at timestamptz, n bigint)
      WHERE w.project_id = ${projectId} AND w.span = x.span AND w.starts_at = x.starts_at`)
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
