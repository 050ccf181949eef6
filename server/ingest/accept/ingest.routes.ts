import type { IncomingMessage } from 'node:http'
import { Hono, type Context } from 'hono'
import type { AppEnv } from '../../context.ts'
import { pgErrorCode } from '../../db/pg-errors.ts'
import { PayloadTooLargeError, UnauthorizedError } from '../../http/errors.ts'
import { parseInput } from '../../http/validate.ts'
import { ingestCors } from './cors.ts'
import { prepareEvents } from '../process/normalize.ts'
import { notifyPayloadSchema, sessionsPayloadSchema } from './payload-schema.ts'
import { projectIdForApiKey } from './project-keys.ts'
import { parseJsonBody, readLimitedBody } from './read-body.ts'
import { recordSessions } from './sessions.ts'

/**
 * The body of a Bugsnag POST and the project it is for: the Bugsnag-Api-Key header, else the
 * apiKey query parameter (@bugsnag/browser's XDomainRequest delivery cannot set headers),
 * else the body's apiKey.
 */
async function readIngestRequest(c: Context<AppEnv>, limitBytes: number): Promise<{ projectId: string; body: unknown }> {
  const { database } = c.var.deps
  const headerKey = c.req.header('Bugsnag-Api-Key')?.trim() || c.req.query('apiKey')?.trim()
  // With the key in the header, refuse an unknown key before reading the body.
  const headerProject = headerKey ? await projectIdForApiKey(database, headerKey) : null
  // @hono/node-server passes the Node request as env.incoming; app.request() in tests does not.
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  let raw: Buffer
  try {
    raw = await readLimitedBody(c.req.raw, limitBytes, incoming)
  } catch (err) {
    // The client may still be sending; close the connection rather than read the rest.
    if (err instanceof PayloadTooLargeError) c.header('Connection', 'close')
    throw err
  }
  const body = parseJsonBody(raw)
  if (headerProject) return { projectId: headerProject, body }
  const bodyKey = body && typeof body === 'object' ? (body as { apiKey?: unknown }).apiKey : undefined
  // A key of another type (a number) is an invalid key, not a missing one.
  const key = bodyKey === undefined || bodyKey === null ? null : typeof bodyKey === 'string' ? bodyKey.trim() : JSON.stringify(bodyKey)
  return { projectId: await projectIdForApiKey(database, key), body }
}

/** Bugsnag-compatible ingestion: POST /notify (events) and POST /sessions, with CORS for browsers. */
export const ingestRoutes = new Hono<AppEnv>()
  .use('/notify', ingestCors)
  .use('/sessions', ingestCors)
  .post('/notify', async (c) => {
    const receivedAt = new Date()
    const { projectId, body } = await readIngestRequest(c, c.var.deps.config.limits.notifyBytes)
    const payload = parseInput(notifyPayloadSchema, body)
    const prepared = prepareEvents(projectId, receivedAt, payload, c.req.header('User-Agent') ?? null)
    await c.var.deps.ingestWriter.write(prepared)
    // Only now, after COMMIT: a notifier that gets 200 may forget the event.
    return c.text('OK', 200)
  })
  .post('/sessions', async (c) => {
    const { projectId, body } = await readIngestRequest(c, c.var.deps.config.limits.sessionsBytes)
    const payload = parseInput(sessionsPayloadSchema, body)
    try {
      await recordSessions(c.var.deps.database.db, projectId, payload)
    } catch (err) {
      // The project was deleted while its API key was still cached (as for /notify).
      if (pgErrorCode(err) === '23503') throw new UnauthorizedError('invalid API key: no project has this API key')
      throw err
    }
    return c.text('Accepted', 202)
  })
