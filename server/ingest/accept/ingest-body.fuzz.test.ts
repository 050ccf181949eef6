import { request as httpRequest } from 'node:http'
import { deflateSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { loadConfig } from '../../config.ts'
import { seedProject } from '../../test-support/seed.ts'
import { fuzzSeed, seededRandom, type SeededRandom } from '../../test-support/seeded-random.ts'
import { createTestContext, listen, type TestContext } from '../../test-support/test-app.ts'

/**
 * /notify and /sessions on random, truncated, deeply nested, huge and compressed bodies (gzip
 * bombs included), sent over real HTTP in random chunks, some cut off mid-body, and through the
 * in-process app: every answer is a 2xx or a 4xx with a JSON `errors` list, never a 5xx, and the
 * server goes on serving. FUZZ_SEED=<n> replays a run (FUZZ_SEED=random tries new cases).
 */

const SEED = fuzzSeed(0x5eed_0002)
const CASES = 250

let ctx: TestContext
let server: Awaited<ReturnType<typeof listen>>
let apiKey: string
const leaked: unknown[] = []
const onLeak = (err: unknown) => leaked.push(err)

beforeAll(async () => {
  // A short body timeout: bodies that never finish are among the cases.
  ctx = await createTestContext({ limits: { ...loadConfig({}).limits, ingestBodyTimeoutMs: 300 } })
  server = await listen(ctx)
  apiKey = (await seedProject(ctx, { project: 'Fuzzed' })).project.api_key
  process.on('uncaughtException', onLeak)
  process.on('unhandledRejection', onLeak)
})
afterAll(async () => {
  process.off('uncaughtException', onLeak)
  process.off('unhandledRejection', onLeak)
  await server?.close()
  await ctx?.close()
})

function randomString(random: SeededRandom): string {
  switch (random.int(0, 4)) {
    case 0:
      return ''
    case 1:
      return 'x'.repeat(random.int(1, 200_000))
    case 2:
      return random.pick(['\u0000', '\ud800', '😀', 'ü', '\\', '"', '\u2028', '<script>'])
    default:
      return random.bytes(random.int(1, 30)).toString('latin1')
  }
}

/** Any JSON value, nested up to `depth`. */
function randomValue(random: SeededRandom, depth: number): unknown {
  switch (random.int(0, depth > 0 ? 7 : 4)) {
    case 0:
      return null
    case 1:
      return random.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, -0])
    case 2:
      return random.chance(0.5)
    case 3:
    case 4:
      return randomString(random)
    case 5:
      return Array.from({ length: random.int(0, 5) }, () => randomValue(random, depth - 1))
    default:
      return Object.fromEntries(Array.from({ length: random.int(0, 5) }, () => [randomString(random).slice(0, 50), randomValue(random, depth - 1)]))
  }
}

function nested(random: SeededRandom): string {
  const depth = random.int(100, 400_000)
  return random.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
}

function notifyPayload(random: SeededRandom): Record<string, unknown> {
  const event: Record<string, unknown> = {
    exceptions: [{ errorClass: 'FuzzError', message: 'boom', stacktrace: [{ file: 'a.js', lineNumber: 1, method: 'run' }] }],
    app: { version: '1.0.0' },
  }
  // One part of the event made anything at all.
  if (random.chance(0.7)) event[random.pick(['exceptions', 'app', 'device', 'metaData', 'user', 'breadcrumbs', 'severity', 'context', 'unhandled'])] = randomValue(random, 4)
  return { apiKey, payloadVersion: '4', notifier: { name: 'fuzz', version: '1', url: 'x' }, events: random.chance(0.9) ? [event] : randomValue(random, 3) }
}

function sessionsPayload(random: SeededRandom): Record<string, unknown> {
  return {
    notifier: { name: 'fuzz', version: '1', url: 'x' },
    app: { version: '1.0.0' },
    device: {},
    sessionCounts: random.chance(0.8) ? [{ startedAt: new Date().toISOString(), sessionsStarted: random.int(-5, 100) }] : randomValue(random, 3),
  }
}

/** A body, its headers, and the path it goes to. */
function request(random: SeededRandom): { path: string; headers: Record<string, string>; body: Buffer } {
  const path = random.pick(['/notify', '/sessions', '/notify/'])
  let text: string
  switch (random.int(0, 6)) {
    case 0:
      text = JSON.stringify(randomValue(random, 6))
      break
    case 1:
      text = nested(random)
      break
    case 2:
      // A valid payload with deep nesting inside it.
      text = JSON.stringify(path === '/sessions' ? sessionsPayload(random) : notifyPayload(random)).replace('"1.0.0"', nested(random))
      break
    default:
      text = JSON.stringify(path === '/sessions' ? sessionsPayload(random) : notifyPayload(random))
  }
  if (random.chance(0.15)) text = text.slice(0, random.int(0, text.length))
  if (random.chance(0.05)) text = `\ufeff${text}`
  let body: Buffer = random.chance(0.05) ? random.bytes(random.int(0, 10_000)) : Buffer.from(text)
  const headers: Record<string, string> = { 'Content-Type': random.pick(['application/json', 'text/plain', 'application/octet-stream', '']) }
  switch (random.int(0, 3)) {
    case 0:
      headers['Bugsnag-Api-Key'] = random.pick([apiKey, 'f'.repeat(32), '', 'not a key', ' '])
      break
    case 1:
      break
    default:
      headers['Bugsnag-Api-Key'] = apiKey
  }
  switch (random.int(0, 9)) {
    case 0:
      headers['Content-Encoding'] = 'gzip'
      // A bomb: a few KB that inflate past every limit.
      body = random.chance(0.5) ? gzipSync(Buffer.alloc(random.int(3, 64) * 1024 * 1024)) : gzipSync(body)
      break
    case 1:
      headers['Content-Encoding'] = random.pick(['deflate', 'x-gzip'])
      body = headers['Content-Encoding'] === 'deflate' ? deflateSync(body) : gzipSync(body)
      if (random.chance(0.3)) body = body.subarray(0, random.int(0, body.length))
      break
    case 2:
      headers['Content-Encoding'] = random.pick(['br', 'gzip', 'identity', 'zstd', 'gzip, gzip'])
      break
  }
  // Past the limits (2 MiB /notify, 512 KiB /sessions).
  if (random.chance(0.03)) body = Buffer.concat([body, Buffer.alloc(3 * 1024 * 1024, 0x20)])
  return { path, headers, body }
}

interface Answer {
  status: number
  contentType: string
  body: string
}

/** Over HTTP: with Content-Length or chunked in random pieces. */
function send(random: SeededRandom, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const chunked = random.chance(0.4)
  const pieces: Buffer[] = []
  for (let at = 0; at < body.length; ) {
    const size = chunked ? random.int(1, 65_536) : body.length
    pieces.push(body.subarray(at, at + size))
    at += size
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${path}`,
      { method: 'POST', agent: false, headers: chunked ? headers : { ...headers, 'Content-Length': String(body.length) } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body: text }))
        res.on('error', reject)
      },
    )
    // The server may answer (413) and close before the body is all sent.
    req.on('error', (err: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(err.code ?? '') ? resolve({ status: -1, contentType: '', body: '' }) : reject(err)))
    for (const piece of pieces) req.write(piece)
    req.end()
  })
}

/** A body that stops partway: the client goes away, or says it is longer than it is and waits. */
function sendCutOff(random: SeededRandom, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer | null> {
  const sent = body.subarray(0, random.int(0, body.length))
  const waits = random.chance(0.5)
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'Content-Length': String(body.length + 1) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body: text }))
    })
    req.on('error', (err) => (waits ? reject(err) : resolve(null)))
    req.write(sent, () => {
      if (!waits) {
        req.destroy()
        resolve(null)
      }
    })
  })
}

/** Through the in-process app (Hono's reading of the body, the same answers). */
async function inProcess(path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const res = await ctx.app.request(`http://errata.test${path}`, { method: 'POST', headers, body: new Uint8Array(body) })
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() }
}

it(`answers every body with a 2xx or a 4xx JSON errors list, never a 5xx (seed ${SEED})`, async () => {
  const random = seededRandom(SEED)
  const statuses = new Map<number, number>()
  for (let n = 0; n < CASES; n++) {
    const { path, headers, body } = request(random)
    const how = random.int(0, 9)
    const where = `seed ${SEED}, case ${n} (${path}, ${JSON.stringify(headers)}, ${body.length} bytes, delivery ${how})`
    const answer =
      how === 0
        ? await sendCutOff(random, path, headers, body)
        : how <= 2
          ? await inProcess(path, headers, body)
          : await send(random, path, headers, body)
    if (answer === null || answer.status === -1) continue
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
    expect(answer.status, `${where}: ${answer.body.slice(0, 300)}`).toBeGreaterThanOrEqual(200)
    expect(answer.status, `${where}: ${answer.body.slice(0, 300)}`).toBeLessThan(500)
    if (answer.status >= 400) {
      expect(answer.contentType, where).toMatch(/^application\/json/)
      const errors = (JSON.parse(answer.body) as { errors: unknown }).errors
      expect(Array.isArray(errors) && errors.length > 0 && errors.every((message) => typeof message === 'string'), `${where}: ${answer.body}`).toBe(true)
    }
  }
  // Still serving, and what was accepted is indexed without a failure leaking.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  await ctx.deps.ingestWriter.indexed()
  expect(leaked, `seed ${SEED}: errors leaked`).toEqual([])
  // The cases reach acceptance and the main refusals.
  expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200, 202, 400, 401, 413, 415]))
})
