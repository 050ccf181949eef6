import { Hono, type Context } from 'hono'
import type { AppEnv } from '../../context.ts'
import { answerIngest, INGEST_PATHS, type IngestPath, type IngestRequest } from './accept.ts'
import { readLimitedBody } from './read-body.ts'

/** An ingestion request as Hono sees it. */
function honoIngestRequest(c: Context<AppEnv>, path: IngestPath): IngestRequest {
  return {
    method: c.req.method,
    path,
    header: (name) => c.req.header(name),
    queryApiKey: () => c.req.query('apiKey'),
    readBody: (limitBytes) => readLimitedBody(c.req.raw, limitBytes),
  }
}

/**
 * /notify and /sessions through the Hono app: what the in-process app answers (tests drive it
 * with app.request). The server's own listener answers them before Hono (node-listener.ts),
 * with the same code (accept.ts).
 */
export const ingestRoutes = new Hono<AppEnv>()
for (const path of INGEST_PATHS) {
  // With or without a trailing slash, as the server's own listener answers them.
  for (const route of [path, `${path}/`]) {
    ingestRoutes.all(route, async (c) => {
      const answer = await answerIngest(c.var.deps, honoIngestRequest(c, path), c.var.requestId)
      return new Response(answer.status === 204 ? null : answer.body, { status: answer.status, headers: answer.headers })
    })
  }
}
