// POST /minidump?api_key=… : a crash as Breakpad, Crashpad and Electron's crashReporter upload it
// (multipart/form-data, the dump in `upload_file_minidump`, the whole body possibly gzip'd), with
// an optional Bugsnag `event` object (app version, release stage, user, metadata) in an `event`
// field and the crash reporter's annotations as other fields. The dump is parsed and its threads
// walked here (bounded: a malformed dump is a 400 naming what is wrong), then it becomes an event
// on the ingest pipeline like any notifier's, and the dump is kept for download (admins).
// Answers 202 with the event's id as text (what Crashpad records as the report's id).
import { createGunzip } from 'node:zlib'
import { pipeline } from 'node:stream/promises'
import { gunzipSync } from 'node:zlib'
import { sql } from 'drizzle-orm'
import { Hono, type Context } from 'hono'
import type { AppEnv } from '../context.ts'
import { newId } from '../db/ids.ts'
import { ValidationError } from '../failures.ts'
import { acceptedRequest } from '../ingest/payload/accepted-request.ts'
import { admitUploadOrDrain, bodyStream } from '../source-maps/multipart-upload.ts'
import { takeUploadSlot } from '../source-maps/upload-slots.ts'
import { MinidumpError, parseMinidump } from '../symbolication/native/minidump.ts'
import { walkThreads } from '../symbolication/native/stackwalk.ts'
import { NativeSymbolStore } from '../symbolication/native-symbol-store.ts'
import { perApp } from '../context.ts'
import { minidumpEvent } from './minidump-event.ts'
import { fileOf, receiveNativeUpload } from './symbol-uploads.routes.ts'

const FIELDS = new Set(['api_key', 'apiKey', 'event'])
const DUMP_FIELD = 'upload_file_minidump'
/** Frames walked per thread. */
const MAX_FRAMES = 256
/** Annotations kept: the crash reporter's small text fields. */
const MAX_ANNOTATIONS = 64
const MAX_ANNOTATION_BYTES = 4096

// One store per app: its SymCaches outlive requests.
const storeOf = perApp((deps) => new NativeSymbolStore(deps.database.db, deps.logger, Math.min(deps.config.native.cacheBytes, 64 * 1024 * 1024)))

function eventField(value: string | undefined): Record<string, unknown> {
  if (value === undefined || value.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw new ValidationError('event: is not JSON; send a Bugsnag event object (app, device, user, metaData, …)')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ValidationError('event: must be a JSON object (a Bugsnag event)')
  return parsed as Record<string, unknown>
}

async function acceptMinidump(c: Context<AppEnv>): Promise<string> {
  const { deps } = c.var
  const receivedAt = new Date()
  const limit = { bytes: deps.config.native.maxMinidumpBytes, setting: 'ERRATA_MAX_MINIDUMP_BYTES' }
  await admitUploadOrDrain(c, limit.bytes)
  // Crashpad gzips the whole body; busboy reads it decompressed (limits apply to what it reads).
  let body = bodyStream(c)
  if (/^\s*gzip\s*$/i.test(c.req.header('Content-Encoding') ?? '')) {
    const gunzip = createGunzip()
    // Its failure reaches the upload's reader through the gunzip stream (a 400 naming the body).
    void pipeline(body, gunzip).catch(() => {})
    body = gunzip
  }
  const { projectId, upload } = await receiveNativeUpload(c, FIELDS, { by: 'key', queryKey: c.req.query('api_key'), keyName: 'api_key' }, limit, body)
  const { file, bytes } = fileOf(upload, DUMP_FIELD, `missing ${DUMP_FIELD}`)
  let dump
  try {
    dump = parseMinidump(bytes)
  } catch (err) {
    if (err instanceof MinidumpError) throw new ValidationError(`${DUMP_FIELD}: ${err.message}`)
    throw err
  }
  const extra = eventField(upload.fields.get('event'))
  const annotations: Record<string, string> = {}
  for (const part of upload.files) {
    if (part.field === DUMP_FIELD || !part.asText || part.size > MAX_ANNOTATION_BYTES || Object.keys(annotations).length >= MAX_ANNOTATIONS) continue
    annotations[part.field] = gunzipSync(part.gzipped).toString('utf8')
  }
  // Unwind records of the modules' uploaded .sym files, where there are some (else frame pointers).
  const cfi = await storeOf(deps).find(projectId, dump.modules.flatMap((m) => (m.debugId ? [m.debugId] : [])), 'cfi')
  const threads = walkThreads(dump, (module) => (module.debugId ? (cfi.get(module.debugId)?.cache ?? null) : null), { maxFrames: MAX_FRAMES })
  const payload = {
    notifier: { name: 'Errata minidump endpoint', version: '1', url: 'https://github.com/errata' },
    payloadVersion: '5',
    events: [minidumpEvent(dump, threads, extra, annotations)],
  }
  const request = acceptedRequest(projectId, receivedAt, Buffer.from(JSON.stringify(payload)), 1, c.req.header('User-Agent') ?? null)
  const eventId = request.eventIds[0]!
  const { db } = deps.database
  await db.execute(sql`INSERT INTO minidumps (id, project_id, event_id, size, gzipped) VALUES (${newId()}, ${projectId}, ${eventId}, ${file.size}, ${file.gzipped})`)
  try {
    await deps.ingestWriter.write(request)
  } catch (err) {
    await db.execute(sql`DELETE FROM minidumps WHERE event_id = ${eventId}`).catch(() => {})
    throw err
  }
  return eventId
}

export const minidumpRoutes = new Hono<AppEnv>().post('/minidump', async (c) => {
  const release = takeUploadSlot(c)
  try {
    return c.text(await acceptMinidump(c), 202)
  } finally {
    release()
  }
})
