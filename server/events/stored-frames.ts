// How mapped JavaScript frames are stored in event_payloads, and put back into the API's shape
// when an event is read (docs/source-maps.md, "How mapped frames are stored").
//
// A mapped frame would otherwise carry up to 7 lines of code context and a full copy of the
// frame as sent, tripling a stored payload. Stored, its code is a reference to a row of
// source_code_snippets (`code_ref: <hash>`, no `code`), one per project and line window, written
// in the transaction that stores the event (writeCodeSnippets: so that a removal of unused
// snippets, under the same project lock, never misses an event), and its minified original keeps
// only what differs from the mapped frame, as a tuple: [file, line, column, method], then
// in_project when it differs, then code when the notifier sent some. What repeats from the mapped
// frame before it in the same stack trace (the minified file, the upload) is written as 0. Events
// stored before (code and minified inline) read as they are.
import { sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { MinifiedFrame, StackFrame } from '../../contract/events.ts'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'

export type CodeLines = Readonly<Record<string, string>>

/** The minified original as stored: file (0: the previous mapped frame's), line, column, method[, in_project[, code]]. */
type StoredMinified = [string | null | 0, number | null, number | null, string | null, boolean?, CodeLines?]

/** A frame as event_payloads holds it: the API's frame, or a mapped one with its code by reference. */
type StoredFrame = Omit<StackFrame, 'minified' | 'source_map_id' | 'code'> & {
  /** Absent with code_ref (every byte of a payload costs its insert: ~60 µs a KB on PGlite). */
  code?: StackFrame['code']
  code_ref?: string
  minified?: MinifiedFrame | StoredMinified
  /** 0: the previous mapped frame's. */
  source_map_id?: string | 0
}

/** What the mapped frame before in the same stack trace had, for what repeats. */
interface Previous {
  file: string | null | undefined
  sourceMapId: string | undefined
}

interface WithStacktraces {
  exceptions: { stacktrace: StackFrame[] }[]
  threads?: { stacktrace: StackFrame[] }[]
}

/**
 * A mapped frame's code context stored as a snippet of its event's project: its hash. A symbol
 * key, which JSON leaves out, on the frame itself: a WeakMap entry for every mapped frame cost
 * the pipeline more than the rest of writing the frame (ephemerons slow garbage collection too).
 */
const CODE_REF = Symbol('code_ref')
type MarkedFrame = StackFrame & { [CODE_REF]?: string }

/**
 * Marks a mapped frame's code context as to be stored in source_code_snippets under `hash` for
 * the project of its event: the payload then keeps the reference instead of the lines, and the
 * lines go to writeCodeSnippets with the event (storedPayloadJson collects them).
 */
export function markCodeStored(frame: StackFrame, hash: string): void {
  ;(frame as MarkedFrame)[CODE_REF] = hash
}

// Frames are built as literals with their fields in the API's order: copying with rest/spread and
// deleting keys leave objects that JSON.stringify walks several times slower (the bench's profile
// showed the stored form costing more than mapping the frames).
function storedFrame(frame: StackFrame, previous: Previous, snippets: Map<string, CodeLines>): StoredFrame {
  const { minified } = frame
  if (!minified) return frame
  const tuple: StoredMinified = [minified.file === previous.file ? 0 : minified.file, minified.line, minified.column, minified.method]
  if (minified.code !== null) tuple.push(minified.in_project, minified.code)
  else if (minified.in_project !== frame.in_project) tuple.push(minified.in_project)
  const hash = frame.code === null ? undefined : (frame as MarkedFrame)[CODE_REF]
  if (hash !== undefined && frame.code) snippets.set(hash, frame.code)
  // A mapped frame has exactly these fields (javascript.ts, mappedFrame).
  const out: StoredFrame =
    hash === undefined
      ? { file: frame.file, line: frame.line, column: frame.column, method: frame.method, in_project: frame.in_project, code: frame.code, minified: tuple }
      : { file: frame.file, line: frame.line, column: frame.column, method: frame.method, in_project: frame.in_project, code_ref: hash, minified: tuple }
  if (frame.source_map_id !== undefined) out.source_map_id = frame.source_map_id === previous.sourceMapId ? 0 : frame.source_map_id
  previous.file = minified.file
  previous.sourceMapId = frame.source_map_id
  return out
}

function storedStacktrace(frames: readonly StackFrame[], snippets: Map<string, CodeLines>): StoredFrame[] {
  const previous: Previous = { file: undefined, sourceMapId: undefined }
  return frames.map((frame) => storedFrame(frame, previous, snippets))
}

const hasMinified = (frames: readonly StackFrame[]) => frames.some((frame) => frame.minified !== undefined)

/**
 * The payload's JSON text as event_payloads stores it: mapped frames compact (see above). The
 * code of each frame stored by reference is added to `snippets` under its hash.
 */
export function storedPayloadJson<P extends WithStacktraces>(payload: P, snippets: Map<string, CodeLines> = new Map()): string {
  if (!payload.exceptions.some((exception) => hasMinified(exception.stacktrace))) return JSON.stringify(payload)
  return JSON.stringify({
    ...payload,
    exceptions: payload.exceptions.map((exception) =>
      hasMinified(exception.stacktrace) ? { ...exception, stacktrace: storedStacktrace(exception.stacktrace, snippets) } : exception,
    ),
  })
}

/**
 * For every stored event, each snippet it uses has last_used_at ≥ its received_at − this, which
 * is how long unused snippets are kept after the last event that used them was received.
 */
const LAST_USED_SLACK = sql`interval '1 day'`
/**
 * A row's last_used_at moves only when an event received more than this later uses it (a row
 * is rewritten at most twice a day); for half a day after that, this process writes nothing for
 * it (see `remembered`), which keeps the invariant above.
 */
const REWRITE_AFTER = sql`interval '12 hours'`
const REWRITE_AFTER_MS = 12 * 3_600_000

/** An event's snippets, to be written with it. */
export interface EventSnippets {
  projectId: string
  receivedAt: Date
  /** Hash → code lines, as storedPayloadJson collected them. */
  snippets: ReadonlyMap<string, CodeLines>
}

interface SnippetRow {
  key: string
  projectId: string
  hash: string
  lines: CodeLines
  /** The received time of the newest of the batch's events using it (ms). */
  usedAt: number
}

/**
 * What this process knows of snippets it wrote or checked (project and hash), so that steady
 * ingestion writes nothing for them: most of a batch's snippets (up to thousands of rows, half as
 * many bytes again as the payloads) were written by an earlier batch.
 * - `settled`: the row was found committed, with last_used_at ≥ usedAt − 12 hours, while the
 *   project had had `removals` removals (projects.code_snippet_removals). While that count is
 *   unchanged the row exists, and an event received up to usedAt + 12 hours needs nothing written.
 * - otherwise this process wrote the row in a transaction that may have rolled back: its lines
 *   are not sent again, but the row is checked, and its lines written if it does not exist.
 */
const remembered = new LRUCache<string, { settled: boolean; removals: number; usedAt: number }>({ max: 200_000 })

const rowsArrays = (rows: readonly SnippetRow[]) => ({
  projects: textArrayLiteral(rows.map((row) => row.projectId)),
  hashes: textArrayLiteral(rows.map((row) => row.hash)),
  usedAt: textArrayLiteral(rows.map((row) => new Date(row.usedAt).toISOString())),
})

/** Creates the rows, or moves their last_used_at as writeCodeSnippets says. */
async function upsertSnippets(tx: Db, rows: readonly SnippetRow[]): Promise<void> {
  const { projects, hashes, usedAt } = rowsArrays(rows)
  await tx.execute(sql`INSERT INTO source_code_snippets AS s (project_id, hash, lines, last_used_at)
    SELECT snippet.project_id, snippet.hash, snippet.lines::jsonb, snippet.used_at::timestamptz
    FROM unnest(${projects}::text[], ${hashes}::text[], ${textArrayLiteral(rows.map((row) => JSON.stringify(row.lines)))}::text[],
      ${usedAt}::text[]) AS snippet (project_id, hash, lines, used_at)
    ON CONFLICT (project_id, hash) DO UPDATE SET last_used_at = excluded.last_used_at
      WHERE s.last_used_at < excluded.last_used_at - ${REWRITE_AFTER}`)
}

/**
 * Moves the last_used_at of existing rows as writeCodeSnippets says, without their lines; for
 * each row whether it existed, and whether it was moved (the final SELECT sees the table as it
 * was before the UPDATE).
 */
async function touchSnippets(tx: Db, rows: readonly SnippetRow[]): Promise<{ row: SnippetRow; existed: boolean; moved: boolean }[]> {
  const { projects, hashes, usedAt } = rowsArrays(rows)
  const found = await queryRows<{ i: number; existed: boolean; moved: boolean }>(
    tx,
    sql`WITH used AS (
        SELECT u.project_id, u.hash, u.used_at::timestamptz AS used_at, u.i
        FROM unnest(${projects}::text[], ${hashes}::text[], ${usedAt}::text[]) WITH ORDINALITY AS u (project_id, hash, used_at, i)
      ), touched AS (
        UPDATE source_code_snippets s SET last_used_at = used.used_at FROM used
        WHERE s.project_id = used.project_id AND s.hash = used.hash AND s.last_used_at < used.used_at - ${REWRITE_AFTER}
        RETURNING 1
      )
      SELECT used.i::int AS i, s.hash IS NOT NULL AS existed, coalesce(s.last_used_at < used.used_at - ${REWRITE_AFTER}, false) AS moved
      FROM used LEFT JOIN source_code_snippets s ON s.project_id = used.project_id AND s.hash = used.hash`,
  )
  return found.map(({ i, existed, moved }) => ({ row: rows[i - 1]!, existed, moved }))
}

/**
 * Writes the snippets the events use, in the transaction that stores them (holding their
 * projects' write locks): a missing row is created, and a row's last_used_at is moved to the
 * received time of the newest of these events using it when that is more than 12 hours later. So
 * for every stored event, each snippet it uses exists with last_used_at ≥ its received_at − 1 day,
 * which is what removeUnusedCodeSnippets relies on.
 */
export async function writeCodeSnippets(tx: Db, events: readonly EventSnippets[]): Promise<void> {
  // One row per project and hash (an upsert cannot touch a row twice), at its newest use.
  const rows = new Map<string, SnippetRow>()
  for (const { projectId, receivedAt, snippets } of events) {
    for (const [hash, lines] of snippets) {
      const key = `${projectId}\n${hash}`
      const row = rows.get(key)
      if (!row) rows.set(key, { key, projectId, hash, lines, usedAt: receivedAt.getTime() })
      else if (row.usedAt < receivedAt.getTime()) row.usedAt = receivedAt.getTime()
    }
  }
  if (rows.size === 0) return
  const projectIds = [...new Set([...rows.values()].map((row) => row.projectId))]
  const removals = new Map(
    (
      await queryRows<{ id: string; n: number | string }>(
        tx,
        sql`SELECT id, code_snippet_removals AS n FROM projects WHERE id = ANY(${textArrayLiteral(projectIds)}::text[])`,
      )
    ).map((project) => [project.id, Number(project.n)]),
  )
  const fresh: SnippetRow[] = []
  const toCheck: SnippetRow[] = []
  for (const row of rows.values()) {
    const known = remembered.get(row.key)
    if (!known) fresh.push(row)
    else if (!known.settled || known.removals !== removals.get(row.projectId) || row.usedAt > known.usedAt + REWRITE_AFTER_MS) toCheck.push(row)
  }
  const settled: SnippetRow[] = []
  for (const { row, existed, moved } of toCheck.length > 0 ? await touchSnippets(tx, toCheck) : []) {
    if (!existed) fresh.push(row)
    else if (!moved) settled.push(row)
    else remembered.set(row.key, { settled: false, removals: 0, usedAt: row.usedAt })
  }
  if (fresh.length > 0) await upsertSnippets(tx, fresh)
  for (const row of fresh) remembered.set(row.key, { settled: false, removals: 0, usedAt: row.usedAt })
  for (const row of settled) remembered.set(row.key, { settled: true, removals: removals.get(row.projectId) ?? 0, usedAt: row.usedAt })
}

/**
 * Removes up to `limit` of a project's snippets that no stored event uses; how many. Run holding
 * the project's write lock (after a deletion of events), so that no event using one is stored
 * meanwhile: by writeCodeSnippets's invariant, a snippet last used more than a day before the
 * project's oldest event is used by none (an event stored later writes its snippets again). The
 * project's count of removals goes up with them (see `remembered`).
 */
export async function removeUnusedCodeSnippets(tx: Db, projectId: string, limit: number): Promise<number> {
  const removed = await queryRows<{ n: number | string }>(
    tx,
    sql`WITH gone AS (
        DELETE FROM source_code_snippets s WHERE s.ctid = ANY (ARRAY(
          SELECT ctid FROM source_code_snippets
          WHERE project_id = ${projectId}
            AND last_used_at < coalesce((SELECT min(received_at) FROM events WHERE project_id = ${projectId}) - ${LAST_USED_SLACK}, 'infinity')
          LIMIT ${limit}))
        RETURNING 1
      ), counted AS (
        SELECT count(*) AS n FROM gone
      ), noted AS (
        UPDATE projects SET code_snippet_removals = code_snippet_removals + 1
        WHERE id = ${projectId} AND (SELECT n FROM counted) > 0
        RETURNING 1
      )
      SELECT n FROM counted`,
  )
  return Number(removed[0]!.n)
}

/** The API's frame from a stored mapped frame (minified original as a tuple); code by reference is filled in after. */
function expandedFrame(frame: StoredFrame, tuple: StoredMinified, previous: Previous): StackFrame {
  const [storedFile, line, column, method, inProject, code] = tuple
  const file = storedFile === 0 ? (previous.file ?? null) : storedFile
  const sourceMapId = frame.source_map_id === 0 ? previous.sourceMapId : frame.source_map_id
  previous.file = file
  previous.sourceMapId = sourceMapId
  const out: StackFrame = {
    file: frame.file,
    line: frame.line,
    column: frame.column,
    method: frame.method,
    in_project: frame.in_project,
    code: frame.code ?? null,
    minified: { line, column, file, method, in_project: inProject ?? frame.in_project, code: code ?? null },
  }
  if (sourceMapId !== undefined) out.source_map_id = sourceMapId
  return out
}

/**
 * Puts stored events' mapped frames back into the API's shape, in place: code context read from
 * source_code_snippets in one query for all of them (one project's), minified originals expanded.
 * A snippet that is gone (never expected: only snippets no stored event uses are removed) reads as no code.
 */
export async function resolveStoredFrames(db: Db, projectId: string, payloads: readonly WithStacktraces[]): Promise<void> {
  const referring: { frame: StackFrame; hash: string }[] = []
  for (const payload of payloads) {
    for (const exception of payload.exceptions) {
      const frames = exception.stacktrace as StoredFrame[]
      const previous: Previous = { file: undefined, sourceMapId: undefined }
      for (let i = 0; i < frames.length; i++) {
        const frame = frames[i]!
        // Events stored before this format keep minified as an object and code inline.
        if (!Array.isArray(frame.minified)) continue
        const expanded = expandedFrame(frame, frame.minified, previous)
        exception.stacktrace[i] = expanded
        if (frame.code_ref !== undefined) referring.push({ frame: expanded, hash: frame.code_ref })
      }
    }
  }
  if (referring.length === 0) return
  const hashes = new Set(referring.map((entry) => entry.hash))
  const rows = await queryRows<{ hash: string; lines: CodeLines | string }>(
    db,
    sql`SELECT hash, lines FROM source_code_snippets WHERE project_id = ${projectId} AND hash = ANY(${textArrayLiteral(hashes)}::text[])`,
  )
  const byHash = new Map(rows.map((row) => [row.hash, typeof row.lines === 'string' ? (JSON.parse(row.lines) as CodeLines) : row.lines]))
  for (const { frame, hash } of referring) {
    // Each frame its own copy: callers may change what they return.
    const code = byHash.get(hash)
    frame.code = code ? { ...code } : null
  }
}
