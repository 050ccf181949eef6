import { z } from 'zod/mini'
import { requireAdmin } from '../auth/scope.ts'
import { Hono, type Context } from 'hono'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import {
  createDeletionBodySchema,
  createDeletionQuerySchema,
  createRetrievalBodySchema,
  createRetrievalQuerySchema,
  listPrivacyQuerySchema,
} from '../../contract/privacy.ts'
import type { AppEnv } from '../context.ts'
import { ValidationError } from '../failures.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject, readJson } from '../http/validate.ts'
import { privacyDeps } from './privacy-deps.ts'
import {
  confirmDeletion,
  createDeletion,
  createRetrieval,
  getDeletion,
  getRetrieval,
  listDeletions,
  listRetrievals,
  openRetrievalFile,
  previewSelection,
} from './privacy.service.ts'
import { readSelectionFilters } from './selection.ts'

const db = (c: Context<AppEnv>) => c.var.deps.database.db

/** The organization or project the path names, resolved for an admin at the edge (server/auth/scope.ts). */
const scopeOf = (c: Context<AppEnv>) => c.var.scope!

/** A value given in the body or the query string, never both (a body is all or nothing). */
function eitherPlace<T>(name: string, fromBody: T | undefined, fromQuery: T | undefined): T | undefined {
  if (fromBody !== undefined && fromQuery !== undefined) {
    throw new ValidationError(`${name}: give it in the query string or in the body, not both`)
  }
  return fromBody ?? fromQuery
}

async function createRetrievalRoute(c: Context<AppEnv>) {
  const body = parseInput(createRetrievalBodySchema, await readJson(c.req.raw))
  const query = parseInput(createRetrievalQuerySchema, queryObject(c.req.url))
  const scope = scopeOf(c)
  const allEvents = eitherPlace('all_events', body.all_events, query.all_events) ?? false
  const filters = readSelectionFilters(c.req.url, body.filters, allEvents, scope)
  const reportType = eitherPlace('report_type', body.report_type, query.report_type) ?? 'gdpr'
  const request = await createRetrieval(db(c), privacyDeps(c.var.deps), urlBuilder(c), c.var.user, scope, { filters, allEvents, reportType })
  return c.json(request, 201)
}

async function createDeletionRoute(c: Context<AppEnv>) {
  const body = parseInput(createDeletionBodySchema, await readJson(c.req.raw))
  const query = parseInput(createDeletionQuerySchema, queryObject(c.req.url))
  const scope = scopeOf(c)
  const allEvents = eitherPlace('all_events', body.all_events, query.all_events) ?? false
  const filters = readSelectionFilters(c.req.url, body.filters, allEvents, scope)
  const skipConfirmation = eitherPlace('skip_confirmation', body.skip_confirmation, query.skip_confirmation) ?? false
  return c.json(await createDeletion(db(c), privacyDeps(c.var.deps), c.var.user, scope, { filters, allEvents, skipConfirmation }), 201)
}

/**
 * The output file, streamed: gzip'd as stored for clients that take gzip (browsers, curl
 * --compressed), decompressed on the way for the others. JSON lines either way.
 */
async function downloadRoute(c: Context<AppEnv>) {
  const scope = scopeOf(c)
  const id = c.req.param('requestId')!
  const file = await openRetrievalFile(db(c), privacyDeps(c.var.deps), scope, id)
  c.header('Content-Type', 'application/x-ndjson; charset=utf-8')
  c.header('Content-Disposition', `attachment; filename="errata-event-data-${id}.jsonl"`)
  c.header('Cache-Control', 'no-store')
  c.header('Vary', 'Accept-Encoding')
  const acceptsGzip = /\bgzip\b/i.test(c.req.header('Accept-Encoding') ?? '')
  if (acceptsGzip) {
    c.header('Content-Encoding', 'gzip')
    if (file.bytes !== null) c.header('Content-Length', String(file.bytes))
    return c.body(file.stream)
  }
  const plain = createGunzip()
  // A failing read ends the answer early (the client sees a cut-off download), nothing more.
  pipeline(Readable.fromWeb(file.stream as import('node:stream/web').ReadableStream<Uint8Array>), plain).catch(() => {})
  return c.body(Readable.toWeb(plain) as ReadableStream<Uint8Array>)
}

function privacyRoutesAt(base: '/organizations/:organizationId' | '/projects/:projectId') {
  return new Hono<AppEnv>()
    // Privacy requests are for admins alone: members are refused before their input is read.
    .use(`${base}/event_data_*`, requireAdmin)
    .post(`${base}/event_data_requests`, createRetrievalRoute)
    .get(`${base}/event_data_requests`, async (c) => {
      const query = parseInput(listPrivacyQuerySchema, queryObject(c.req.url))
      const scope = scopeOf(c)
      const page = await listRetrievals(db(c), urlBuilder(c), scope, query, privacyDeps(c.var.deps).clock())
      setPageHeaders(c, page)
      return c.json(page.items)
    })
    .get(`${base}/event_data_requests/:requestId`, async (c) => {
      const scope = scopeOf(c)
      return c.json(await getRetrieval(db(c), urlBuilder(c), scope, c.req.param('requestId'), privacyDeps(c.var.deps).clock()))
    })
    .get(`${base}/event_data_requests/:requestId/download`, downloadRoute)
    .post(`${base}/event_data_deletions`, createDeletionRoute)
    .get(`${base}/event_data_deletions`, async (c) => {
      const query = parseInput(listPrivacyQuerySchema, queryObject(c.req.url))
      const scope = scopeOf(c)
      const page = await listDeletions(db(c), scope, query)
      setPageHeaders(c, page)
      return c.json(page.items)
    })
    .get(`${base}/event_data_deletions/:deletionId`, async (c) => {
      const scope = scopeOf(c)
      return c.json(await getDeletion(db(c), scope, c.req.param('deletionId')))
    })
    .post(`${base}/event_data_deletions/:deletionId/confirm`, async (c) => {
      const scope = scopeOf(c)
      return c.json(await confirmDeletion(db(c), privacyDeps(c.var.deps), c.var.user, scope, c.req.param('deletionId')))
    })
    .get(`${base}/event_data_preview`, async (c) => {
      const query = parseInput(z.pick(createRetrievalQuerySchema, { all_events: true }), queryObject(c.req.url))
      const scope = scopeOf(c)
      const filters = readSelectionFilters(c.req.url, undefined, query.all_events ?? false, scope)
      return c.json(await previewSelection(db(c), privacyDeps(c.var.deps), c.var.user, scope, filters))
    })
}

/** Event data retrievals and deletions (spec section 4), per organization and per project. */
export const privacyRoutes = new Hono<AppEnv>()
  .route('/', privacyRoutesAt('/organizations/:organizationId'))
  .route('/', privacyRoutesAt('/projects/:projectId'))
