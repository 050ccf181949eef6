// The ingest journal's files: the accepted-event log of the embedded database (docs/ingestion.md,
// "The accepted-event log"; journal-log.ts reads it for the indexer). A request is acknowledged
// once it is appended to a file here and fdatasync'd; acknowledging never waits for the database.
//
// A journal is a directory of numbered segment files. Each line is one accepted request: its
// record data as JSON, a tab, the payload's JSON text as received (raw CR, LF and TAB bytes,
// which valid JSON only has between tokens, made spaces), a newline. Each process appends to a segment of its own, so a line torn
// by a crash is only ever at the end of a finished segment, where the reader skips it: that
// batch was never acknowledged.
import { mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { AcceptedRequest } from '../payload/accepted-request.ts'

/** A segment is closed once it holds this much; the indexer deletes it once past it. */
const SEGMENT_BYTES = 16 * 1024 * 1024

/** Where the indexer resumes: a segment number and a byte offset in it. */
export interface JournalPosition {
  segment: number
  offset: number
}

/** One line read back from the journal: an accepted request. `end`: the position just after it. */
export interface JournalRecord {
  request: AcceptedRequest
  end: JournalPosition
}

/** The record data of a request's line. */
interface RequestMeta {
  v: 2
  /** Absent for POST /notify. */
  kind?: 'sessions'
  project_id: string
  received_at: string
  ids: string[]
  ua: string | null
}

const SEGMENT_NAME = /^(\d{12})\.log$/
const NEWLINE = 0x0a
const TAB = 0x09

export const segmentPath = (dir: string, segment: number) => join(dir, `${String(segment).padStart(12, '0')}.log`)

/** The segment numbers in `dir`, oldest first. */
export async function listSegments(dir: string): Promise<number[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[]
    throw err
  })
  return names
    .map((name) => SEGMENT_NAME.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b)
}

const TAB_BYTE = Buffer.from('\t')
const NEWLINE_BYTE = Buffer.from('\n')

/** The journal lines of a batch of accepted requests. */
export function journalLines(requests: readonly AcceptedRequest[]): Buffer {
  const parts: Buffer[] = []
  for (const r of requests) {
    const meta: RequestMeta = { v: 2, project_id: r.projectId, received_at: r.receivedAt.toISOString(), ids: r.eventIds, ua: r.userAgent }
    if (r.kind === 'sessions') meta.kind = 'sessions'
    parts.push(Buffer.from(JSON.stringify(meta)), TAB_BYTE, oneLineBody(r.body), NEWLINE_BYTE)
  }
  return Buffer.concat(parts)
}

/** Runs async calls one after another, in call order; a failed call does not stop the next. */
export function takeTurns() {
  let last: Promise<unknown> = Promise.resolve()
  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      const result = last.then(fn)
      last = result.catch(() => undefined)
      return result
    },
    /** Resolves once every call made so far has finished. */
    settled: () => last.then(() => undefined),
  }
}

export interface JournalAppender {
  /** Appends complete lines and fdatasyncs them; resolves once they are durable. Calls take turns. */
  append(lines: Buffer): Promise<void>
  close(): Promise<void>
}

/**
 * The appending side (HTTP thread). It starts a new segment when it opens, so it never
 * appends after a torn line an earlier process left. A failed write or sync refuses the
 * batch. If part of it reached the file, it moves on to a new segment, leaving that part at
 * the end of a finished segment, where a torn line is skipped (complete lines of a refused
 * batch may still be indexed; the notifier retries, which at worst duplicates). If nothing
 * reached the file, it keeps the segment, so a full disk does not make a file per refusal.
 */
export async function openJournalAppender(dir: string, segmentBytes = SEGMENT_BYTES): Promise<JournalAppender> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  let segment = ((await listSegments(dir)).at(-1) ?? 0) + 1
  let handle: FileHandle | null = null
  let size = 0

  async function startSegment(): Promise<FileHandle> {
    // Raw events (emails, addresses, headers): readable by Errata's user only.
    const next = await open(segmentPath(dir, segment), 'wx', 0o600)
    // The new file's directory entry must be durable too, or a power loss could drop the
    // whole segment with the events acknowledged from it.
    const directory = await open(dir, 'r')
    try {
      await directory.sync()
    } finally {
      await directory.close()
    }
    handle = next
    size = 0
    return next
  }
  async function finishSegment(): Promise<void> {
    const finished = handle
    handle = null
    segment += 1
    await finished?.close().catch(() => undefined)
  }

  // Created at once: its existence tells the reader that every earlier segment is finished.
  await startSegment()

  async function append(bytes: Buffer): Promise<void> {
    if (handle && size > 0 && size + bytes.length > segmentBytes) await finishSegment()
    const file = handle ?? (await startSegment())
    let written = 0
    try {
      while (written < bytes.length) {
        const { bytesWritten } = await file.write(bytes, written, bytes.length - written, size + written)
        written += bytesWritten
      }
      await file.datasync()
      size += bytes.length
    } catch (err) {
      // Nothing of the batch reached the file (a full disk refuses the first write): the segment
      // is as it was, and the next batch goes on appending to it, so a full disk makes no new
      // files. Otherwise the indexer may already have read complete lines of the refused batch:
      // they must never be written over, so they stay at the end of a segment finished here.
      if (written > 0) await finishSegment()
      throw err
    }
  }

  // Appends are positional: several writers sharing the journal must not interleave.
  const turns = takeTurns()
  return {
    append: (lines) => turns.run(() => append(lines)),
    async close() {
      await turns.settled()
      await handle?.close()
      handle = null
    },
  }
}

/**
 * The reading side (database thread): records from a position on, across segments, up to
 * `limit`. A segment's unterminated tail counts as written only while the segment is the
 * newest; once a later one exists, the tail is a torn line and is skipped.
 */
export function createJournalReader(dir: string) {
  let openFile: { segment: number; handle: FileHandle } | null = null

  async function fileFor(segment: number): Promise<FileHandle> {
    if (openFile?.segment === segment) return openFile.handle
    await openFile?.handle.close()
    openFile = null
    const handle = await open(segmentPath(dir, segment), 'r')
    openFile = { segment, handle }
    return handle
  }

  /** Reads whole lines of one segment from `offset`: up to `limit` of them, in chunks that grow to fit a line. */
  async function readLines(
    segment: number,
    offset: number,
    limit: number,
    onLine: (line: Buffer, end: number) => void,
  ) {
    const handle = await fileFor(segment)
    let chunkBytes = 1024 * 1024
    let position = offset
    let count = 0
    while (count < limit) {
      const chunk = Buffer.allocUnsafe(chunkBytes)
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position)
      if (bytesRead === 0) break
      let start = 0
      for (;;) {
        if (count >= limit) break
        const nl = chunk.indexOf(NEWLINE, start)
        if (nl < 0 || nl >= bytesRead) break
        onLine(chunk.subarray(start, nl), position + nl + 1)
        count += 1
        start = nl + 1
      }
      if (start === 0) {
        if (bytesRead < chunkBytes) break // no complete line yet
        chunkBytes *= 2 // one line longer than the chunk
        continue
      }
      position += start
      if (bytesRead < chunkBytes && start === bytesRead) break
    }
    return count
  }

  return {
    /**
     * Up to `limit` records from `from` on, and where the next read starts. Lines that
     * cannot be parsed (damaged on disk) come back in `damaged`, to be reported and skipped.
     */
    async read(
      from: JournalPosition,
      limit: number,
    ): Promise<{
      records: JournalRecord[]
      damaged: JournalRecordError[]
      next: JournalPosition
    }> {
      const records: JournalRecord[] = []
      const damaged: JournalRecordError[] = []
      let at = from
      for (const segment of await listSegments(dir)) {
        if (segment < at.segment) continue
        if (segment > at.segment) at = { segment, offset: 0 }
        await readLines(segment, at.offset, limit - records.length, (line, end) => {
          at = { segment, offset: end }
          try {
            records.push(parseRecord(line, at))
          } catch (err) {
            damaged.push(err as JournalRecordError)
          }
        })
        if (records.length >= limit) break
      }
      return { records, damaged, next: at }
    },
    /**
     * Complete lines from `from` to the end of the journal, counted up to `cap`. Leaves no file
     * open: a count (the health check) must not keep a segment's disk space after it is deleted.
     */
    async count(from: JournalPosition, cap: number): Promise<number> {
      let total = 0
      try {
        for (const segment of await listSegments(dir)) {
          if (segment < from.segment || total >= cap) continue
          total += await readLines(segment, segment === from.segment ? from.offset : 0, cap - total, () => {})
        }
      } finally {
        await openFile?.handle.close()
        openFile = null
      }
      return total
    },
    /** Deletes the segments wholly before `position`: their events are indexed. */
    async release(position: JournalPosition): Promise<void> {
      for (const segment of await listSegments(dir)) {
        if (segment >= position.segment) break
        if (openFile?.segment === segment) {
          await openFile.handle.close()
          openFile = null
        }
        await unlink(segmentPath(dir, segment)).catch(() => undefined)
      }
    },
    async close(): Promise<void> {
      await openFile?.handle.close()
      openFile = null
    },
  }
}

function parseRecord(line: Buffer, end: JournalPosition): JournalRecord {
  const tab = line.indexOf(TAB)
  if (tab < 0) throw new JournalRecordError(end, 'no tab between the row data and the payload')
  let meta: RequestMeta
  try {
    meta = JSON.parse(line.toString('utf8', 0, tab)) as RequestMeta
  } catch {
    throw new JournalRecordError(end, 'the row data is not JSON')
  }
  if (meta.v !== 2 || !Array.isArray(meta.ids) || typeof meta.project_id !== 'string') {
    throw new JournalRecordError(end, 'the record data is incomplete')
  }
  const request: AcceptedRequest = {
    kind: meta.kind === 'sessions' ? 'sessions' : 'notify',
    projectId: meta.project_id,
    receivedAt: new Date(meta.received_at),
    eventIds: meta.ids,
    userAgent: meta.ua,
    // A copy: the line is a view of the reader's chunk, which the next read reuses.
    body: Buffer.from(line.subarray(tab + 1)),
  }
  return { request, end }
}

/** A journal line that cannot be read (damaged on disk): reported with where it ends, so it can be skipped. */
class JournalRecordError extends Error {
  constructor(
    readonly end: JournalPosition,
    reason: string,
  ) {
    super(`unreadable ingest journal line ending at segment ${end.segment}, byte ${end.offset}: ${reason}`)
  }
}

const CR = 0x0d
const LF = 0x0a
const SPACE = 0x20

/**
 * The body with raw CR, LF and TAB bytes turned into spaces, so that it fits on one journal
 * line after a tab. In valid JSON those bytes only ever stand between tokens (a string may not
 * hold them raw), so the text means exactly the same; the common compact body is returned as is.
 */
function oneLineBody(body: Buffer): Buffer {
  if (body.indexOf(LF) < 0 && body.indexOf(CR) < 0 && body.indexOf(TAB) < 0) return body
  const copy = Buffer.from(body)
  for (let i = 0; i < copy.length; i++) {
    const byte = copy[i]
    if (byte === LF || byte === CR || byte === TAB) copy[i] = SPACE
  }
  return copy
}
