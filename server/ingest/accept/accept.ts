// The accept stage: POST /notify and POST /sessions, as Bugsnag notifiers send them. Read the
// body (limits enforced while reading), parse it, check the envelope, find the project,
// append the request to the accepted-event log, acknowledge (both kinds alike). Nothing else happens before the
// 200: normalizing, grouping and indexing are the later stages' work, on the pipeline's thread.
//
// Framework-free, so that the same code answers through the server's own node:http listener
// (node-listener.ts: the fast path in production) and through Hono (ingest.routes.ts: the
// in-process app that tests drive with app.request).
import type { Logger } from 'pino'
import { apiErrorSchema } from '../../../contract/api-error.ts'
import type { AppDeps } from '../../context.ts'
import { isDatabaseUnavailable, logDatabaseUnavailable } from '../../db/pg-errors.ts'
import { Failure, PayloadTooLargeError, ServiceBusyError } from '../../failures.ts'
import { statusOf } from '../../http/errors.ts'
import { parseInput } from '../../http/validate.ts'
import { acceptedRequest, acceptedSessions } from '../payload/accepted-request.ts'
import { notifyPayloadSchema, sessionsPayloadSchema } from '../payload/payload-schema.ts'
import { projectIdForApiKey } from './project-keys.ts'
import { BodyTimeoutError, parseJsonBody } from './read-body.ts'

export const INGEST_PATHS = ['/notify', '/sessions'] as const
export type IngestPath = (typeof INGEST_PATHS)[number]

/** An ingestion request, whichever server received it. */
export interface IngestRequest {
  method: string
  path: IngestPath
  /** A request header (any case), or undefined. */
  header(name: string): string | undefined
  /** The apiKey query parameter (@bugsnag/browser's XDomainRequest delivery cannot set headers). */
  queryApiKey(): string | undefined
  /** The body, decompressed, refused with 413 as soon as it passes `limitBytes`. */
  readBody(limitBytes: number): Promise<Buffer>
}

interface IngestAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

const DEFAULT_ALLOWED_HEADERS = 'Bugsnag-Api-Key, Bugsnag-Payload-Version, Bugsnag-Sent-At, Content-Type, Content-Encoding'
const TEXT = 'text/plain; charset=UTF-8'
const JSON_TYPE = 'application/json'

/**
 * CORS for every answer. Browser notifiers send custom Bugsnag-* headers, so every POST is
 * preceded by a preflight; without a 2xx preflight answer and Access-Control-Allow-Origin on
 * the POST answer (errors included), the browser drops the event silently. Any origin may
 * send: the API key, not the origin, identifies the project. The server-wide same-origin
 * resource policy would contradict that.
 */
function corsHeaders(request: IngestRequest): Record<string, string> {
  const origin = request.header('origin')
  const headers: Record<string, string> = {
    'Access-Control-Allow-Origin': origin || '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  }
  if (origin) headers.Vary = 'Origin'
  return headers
}

/** The JSON body of a refusal. */
const errorJson = (messages: string[]) => JSON.stringify(apiErrorSchema.parse({ errors: messages }))

/** The project of a request: the Bugsnag-Api-Key header, else the apiKey query parameter, else the body's apiKey. */
async function projectOf(deps: AppDeps, request: IngestRequest, headerProject: string | null, body: unknown): Promise<string> {
  if (headerProject) return headerProject
  const bodyKey = body && typeof body === 'object' ? (body as { apiKey?: unknown }).apiKey : undefined
  // A key of another type (a number) is an invalid key, not a missing one.
  const key = bodyKey === undefined || bodyKey === null ? null : typeof bodyKey === 'string' ? bodyKey.trim() : JSON.stringify(bodyKey)
  return projectIdForApiKey(deps.database, key)
}

async function readRequest(deps: AppDeps, request: IngestRequest, limitBytes: number) {
  try {
    // Low on disk space: refused before anything is written (storage/disk-guard.ts).
    deps.diskGuard?.admitEvents()
  } catch (err) {
    // The body is read and dropped (within the usual limits) so the notifier reads the answer
    // instead of a connection reset while it is still sending.
    await request.readBody(limitBytes).catch(() => undefined)
    throw err
  }
  const headerKey = request.header('bugsnag-api-key')?.trim() || request.queryApiKey()?.trim()
  // With the key in the header, refuse an unknown key before reading the body.
  const headerProject = headerKey ? await projectIdForApiKey(deps.database, headerKey) : null
  const raw = await request.readBody(limitBytes)
  const body = parseJsonBody(raw)
  return { raw, body, projectId: await projectOf(deps, request, headerProject, body) }
}

async function acceptNotify(deps: AppDeps, request: IngestRequest): Promise<IngestAnswer> {
  const receivedAt = new Date()
  const { raw, body, projectId } = await readRequest(deps, request, deps.config.limits.notifyBytes)
  const payload = parseInput(notifyPayloadSchema, body)
  await deps.ingestWriter.write(acceptedRequest(projectId, receivedAt, raw, payload.events.length, request.header('user-agent') ?? null))
  // Only now, durable in the log: a notifier that gets 200 may forget the event.
  return { status: 200, headers: { 'Content-Type': TEXT }, body: 'OK' }
}

async function acceptSessions(deps: AppDeps, request: IngestRequest): Promise<IngestAnswer> {
  const receivedAt = new Date()
  const { raw, body, projectId } = await readRequest(deps, request, deps.config.limits.sessionsBytes)
  parseInput(sessionsPayloadSchema, body)
  await deps.ingestWriter.write(acceptedSessions(projectId, receivedAt, raw))
  return { status: 202, headers: { 'Content-Type': TEXT }, body: 'Accepted' }
}

/** A failure as the answer notifiers get: the typed ones keep their status; the database away is a 503 they retry. */
function failureAnswer(err: unknown, logger: Logger, requestId: string): { status: number; headers: Record<string, string>; messages: string[] } {
  if (err instanceof ServiceBusyError) {
    // Refused before anything was stored; a body over its limit was not read whole.
    return { status: statusOf(err), headers: { 'Retry-After': String(err.retryAfterSeconds), Connection: 'close' }, messages: err.messages }
  }
  if (err instanceof Failure) {
    // The client may still be sending; say the connection ends rather than read the rest.
    return { status: statusOf(err), headers: err instanceof PayloadTooLargeError || err instanceof BodyTimeoutError ? { Connection: 'close' } : {}, messages: err.messages }
  }
  if (isDatabaseUnavailable(err)) {
    logDatabaseUnavailable(logger, err)
    return { status: 503, headers: { 'Retry-After': '5' }, messages: ['the database is unavailable or busy; retry shortly'] }
  }
  logger.error({ err, reqId: requestId }, 'unhandled error')
  return { status: 500, headers: {}, messages: [`internal server error; see the server log for request ${requestId}`] }
}

/** Answers one ingestion request (any method): CORS preflight, POST, or 405. Never throws. */
export async function answerIngest(deps: AppDeps, request: IngestRequest, requestId: string): Promise<IngestAnswer> {
  const cors = corsHeaders(request)
  if (request.method === 'OPTIONS') {
    return {
      status: 204,
      headers: {
        ...cors,
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': request.header('access-control-request-headers') || DEFAULT_ALLOWED_HEADERS,
        'Access-Control-Max-Age': '86400',
      },
      body: '',
    }
  }
  try {
    if (request.method !== 'POST') throw new Failure405(request)
    const answer = request.path === '/notify' ? await acceptNotify(deps, request) : await acceptSessions(deps, request)
    return { ...answer, headers: { ...cors, ...answer.headers } }
  } catch (err) {
    if (err instanceof Failure405) {
      return { status: 405, headers: { ...cors, Allow: 'OPTIONS, POST', 'Content-Type': JSON_TYPE }, body: errorJson([err.message]) }
    }
    const failure = failureAnswer(err, deps.logger, requestId)
    return { status: failure.status, headers: { ...cors, ...failure.headers, 'Content-Type': JSON_TYPE }, body: errorJson(failure.messages) }
  }
}

class Failure405 extends Error {
  constructor(request: IngestRequest) {
    super(`${request.method} is not allowed on ${request.path}; use POST`)
  }
}
