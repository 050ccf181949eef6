// The server's request listener: /notify and /sessions are answered here, on node:http
// directly, before Hono; everything else goes to the Hono app. A notifier's POST is the one
// request Errata receives by the thousand per second, and the web Request/Response shim costs
// about as much as all of the accept stage's own work (docs/ingestion.md). The answers are the
// same as through Hono (accept.ts answers both), security headers included.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import type { AppDeps } from '../../context.ts'
import { shouldLogRequest } from '../../http/log-redaction.ts'
import { securityHeaders } from '../../http/security-headers.ts'
import { answerIngest, INGEST_PATHS, type IngestPath, type IngestRequest } from './accept.ts'
import { readNodeBody } from './read-body.ts'

/** The security headers every answer carries (http/security-headers.ts), as Hono would set them. */
async function prebuiltSecurityHeaders(): Promise<Record<string, string>> {
  const probe = new Hono().use(securityHeaders).get('/', (c) => c.body(null, 204))
  const response = await probe.request('/')
  return Object.fromEntries(response.headers)
}

function ingestPath(url: string | undefined): IngestPath | null {
  if (!url) return null
  const query = url.indexOf('?')
  const raw = query < 0 ? url : url.slice(0, query)
  // /notify/ is /notify: a notifier endpoint configured with a trailing slash is still answered
  // (405 with Allow for a GET, not 404).
  const path = raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw
  return (INGEST_PATHS as readonly string[]).includes(path) ? (path as IngestPath) : null
}

function nodeIngestRequest(incoming: IncomingMessage, path: IngestPath, bodyTimeoutMs: number): IngestRequest {
  return {
    method: incoming.method ?? 'GET',
    path,
    header: (name) => {
      const value = incoming.headers[name.toLowerCase()]
      return Array.isArray(value) ? value.join(', ') : value
    },
    queryApiKey: () => {
      const url = incoming.url ?? ''
      const query = url.indexOf('?')
      return query < 0 ? undefined : (new URLSearchParams(url.slice(query + 1)).get('apiKey') ?? undefined)
    },
    readBody: (limitBytes) => readNodeBody(incoming, limitBytes, bodyTimeoutMs),
  }
}

/** How often the accept path logs what it acknowledged, instead of a line per request. */
const ACCEPTED_LOG_INTERVAL_MS = 10_000

/**
 * The listener: ingestion here, the rest through `app.fetch`. Acknowledged requests are
 * counted and logged once per 10 s (a line per event would cost more than appending it);
 * refusals are logged one by one, as the Hono app logs every request.
 */
export async function createRequestListener(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  deps: AppDeps,
  hostname?: string,
): Promise<RequestListener & { close(): void }> {
  const honoListener = getRequestListener(app.fetch, { hostname })
  const security = await prebuiltSecurityHeaders()
  const accepted = { requests: 0, ms: 0 }
  const flush = () => {
    if (accepted.requests === 0 || deps.config.requestLog !== 'all') return
    deps.logger.info({ requests: accepted.requests, avgMs: Math.round((accepted.ms / accepted.requests) * 10) / 10 }, 'ingestion requests acknowledged')
    accepted.requests = 0
    accepted.ms = 0
  }
  const timer = setInterval(flush, ACCEPTED_LOG_INTERVAL_MS)
  timer.unref()

  async function answer(incoming: IncomingMessage, outgoing: ServerResponse, path: IngestPath): Promise<void> {
    const started = performance.now()
    const requestId = randomUUID()
    const result = await answerIngest(deps, nodeIngestRequest(incoming, path, deps.config.limits.ingestBodyTimeoutMs), requestId)
    // Handler headers win over the server-wide ones (CORS's Cross-Origin-Resource-Policy).
    outgoing.writeHead(result.status, { ...security, 'X-Request-Id': requestId, ...result.headers })
    outgoing.end(result.status === 204 ? undefined : result.body)
    const ms = performance.now() - started
    if (result.status < 300) {
      accepted.requests += 1
      accepted.ms += ms
    } else if (shouldLogRequest(deps.config.requestLog, result.status)) {
      deps.logger.info({ reqId: requestId, method: incoming.method, path, status: result.status, ms: Math.round(ms * 10) / 10 }, 'request')
    }
  }

  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const path = ingestPath(incoming.url)
    if (!path) return void honoListener(incoming, outgoing)
    answer(incoming, outgoing, path).catch((err: unknown) => {
      deps.logger.error({ err }, 'answering an ingestion request failed')
      if (!outgoing.headersSent) outgoing.writeHead(500)
      outgoing.end()
    })
  }
  return Object.assign(listener, {
    close() {
      clearInterval(timer)
      flush()
    },
  })
}
