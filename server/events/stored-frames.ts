// How mapped JavaScript frames are stored in event_payloads, and put back into the API's shape
// when an event is read (docs/source-maps.md, "How mapped frames are stored").
//
// A mapped frame would otherwise carry up to 7 lines of code context and a full copy of the
// frame as sent, tripling a stored payload. Stored, its code is a reference to a row of
// source_code_snippets (`code_ref: <hash>`, no `code`), written once per project and line window
// by the symbolicator, and its minified original keeps only what differs from the mapped frame, as
// a tuple: [file, line, column, method], then in_project when it differs, then code when the
// notifier sent some. What repeats from the mapped frame before it in the same stack trace (the
// minified file, the upload) is written as 0. Events stored before (code and minified inline)
// read as they are.
import { sql } from 'drizzle-orm'
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
 * Marks a mapped frame's code context as stored in source_code_snippets under `hash` for the
 * project of its event (the symbolicator marks frames only once the row exists, or is written
 * before the frame is put in an event): the payload then keeps the reference instead of the lines.
 */
export function markCodeStored(frame: StackFrame, hash: string): void {
  ;(frame as MarkedFrame)[CODE_REF] = hash
}

// Frames are built as literals with their fields in the API's order: copying with rest/spread and
// deleting keys leave objects that JSON.stringify walks several times slower (the bench's profile
// showed the stored form costing more than mapping the frames).
function storedFrame(frame: StackFrame, previous: Previous): StoredFrame {
  const { minified } = frame
  if (!minified) return frame
  const tuple: StoredMinified = [minified.file === previous.file ? 0 : minified.file, minified.line, minified.column, minified.method]
  if (minified.code !== null) tuple.push(minified.in_project, minified.code)
  else if (minified.in_project !== frame.in_project) tuple.push(minified.in_project)
  const hash = frame.code === null ? undefined : (frame as MarkedFrame)[CODE_REF]
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

function storedStacktrace(frames: readonly StackFrame[]): StoredFrame[] {
  const previous: Previous = { file: undefined, sourceMapId: undefined }
  return frames.map((frame) => storedFrame(frame, previous))
}

const hasMinified = (frames: readonly StackFrame[]) => frames.some((frame) => frame.minified !== undefined)

/** The payload's JSON text as event_payloads stores it: mapped frames compact (see above). */
export function storedPayloadJson<P extends WithStacktraces>(payload: P): string {
  if (!payload.exceptions.some((exception) => hasMinified(exception.stacktrace))) return JSON.stringify(payload)
  return JSON.stringify({
    ...payload,
    exceptions: payload.exceptions.map((exception) =>
      hasMinified(exception.stacktrace) ? { ...exception, stacktrace: storedStacktrace(exception.stacktrace) } : exception,
    ),
  })
}

/** Writes snippets of one project, skipping those that exist (another event or process wrote them). */
export async function insertCodeSnippets(db: Db, projectId: string, snippets: ReadonlyMap<string, CodeLines>): Promise<void> {
  if (snippets.size === 0) return
  const hashes = textArrayLiteral(snippets.keys())
  const lines = textArrayLiteral([...snippets.values()].map((code) => JSON.stringify(code)))
  await db.execute(sql`INSERT INTO source_code_snippets (project_id, hash, lines)
    SELECT ${projectId}, snippet.hash, snippet.lines::jsonb FROM unnest(${hashes}::text[], ${lines}::text[]) AS snippet (hash, lines)
    ON CONFLICT DO NOTHING`)
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
 * A snippet that is gone (never expected: only deleting the project removes them) reads as no code.
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
