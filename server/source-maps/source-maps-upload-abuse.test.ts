import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../app.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, listen, type TestContext } from '../test-support/test-app.ts'
import { uploadsInProgress } from './upload-slots.ts'

/**
 * What an anonymous client can send the upload endpoints: bodies cut short, connections dropped
 * mid-file, malformed multipart. Each is answered (or, when the client is gone, forgotten) and the
 * server goes on serving; nothing the upload wrote to disk is left behind.
 */

let ctx: TestContext
let server: Awaited<ReturnType<typeof listen>>
let apiKey: string
let projectId: string
let token: string
// This worker's temporary directory, so the test can see that every upload's files are removed.
const spoolRoot = mkdtempSync(join(tmpdir(), 'errata-upload-test-'))
const previousTmpdir = process.env.TMPDIR

beforeAll(async () => {
  process.env.TMPDIR = spoolRoot
  ctx = await createTestContext()
  server = await listen(ctx)
  const { project, user } = await seedProject(ctx, { user: 'Uploader', organization: 'Abuse Org', project: 'Web shop', type: 'browser' })
  apiKey = project.api_key
  projectId = project.id
  token = user.token
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
  if (previousTmpdir === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = previousTmpdir
  rmSync(spoolRoot, { recursive: true, force: true })
})

const BOUNDARY = 'errata-test-boundary'
const part = (name: string, value: string, filename?: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${value}\r\n`
const fileStart = (name: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="/builds/${name}"\r\n\r\n`

/** One request over a socket of its own, written as given and ended (half-closed) without a closing boundary. */
function sendRaw(path: string, body: string, headers: Record<string, string> = {}, url = server.url): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': Buffer.byteLength(body), ...headers } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** Writes the start of an upload on a raw socket, then resets the connection mid-file. */
function abortMidFile(path: string, start: string, headers: Record<string, string>): Promise<void> {
  const { port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}\r\n`,
      )
      const chunk = `${start}${'x'.repeat(256 * 1024)}`
      socket.write(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`)
      // The connection goes once the server has started writing the file to its spool.
      until(spooling).then(() => {
        socket.resetAndDestroy()
        resolve()
      }, reject)
    })
    socket.on('error', reject)
  })
}

/** Whether an upload has a file in its spool directory (the server is reading a file part). */
function spooling(): boolean {
  return readdirSync(spoolRoot).some((name) => {
    try {
      return name.startsWith('errata-upload-') && readdirSync(join(spoolRoot, name)).length > 0
    } catch {
      return false // removed meanwhile
    }
  })
}

async function stillServing(): Promise<void> {
  const res = await fetch(`${server.url}/healthz`)
  expect(res.status).toBe(200)
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 30 s')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Awaits the removal of every file an upload wrote (the server removes them once it has answered). */
async function spoolEmptied(): Promise<void> {
  const left = () => readdirSync(spoolRoot).filter((name) => name.startsWith('errata-upload-'))
  await until(() => left().length === 0).catch(() => {
    throw new Error(`left behind in the temporary directory: ${left().join(', ')}`)
  })
}

const uploads = [
  { path: '/sourcemap', fields: () => part('apiKey', apiKey) + part('minifiedUrl', 'https://cdn.example.com/a.js'), headers: () => ({}) },
  { path: '/react-native-source-map', fields: () => part('apiKey', apiKey) + part('platform', 'android'), headers: () => ({}) },
  {
    path: '/api/projects/:id/source_maps',
    fields: () => part('minifiedUrl', 'https://cdn.example.com/a.js'),
    headers: (): Record<string, string> => ({ Authorization: `token ${token}`, 'X-Version': '2' }),
  },
]

describe.each(uploads)('$path', ({ path: pattern, fields, headers }) => {
  const path = () => pattern.replace(':id', projectId)

  it('400 naming the problem for a body that ends inside a file, without its closing boundary; the server goes on', async () => {
    const res = await sendRaw(path(), `${fields()}${fileStart('sourceMap')}{"version":3,"sources":[`, headers())
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ errors: ['body: ends before its closing boundary: the upload is incomplete'] })
    await stillServing()
    await spoolEmptied()
  })

  it('400 for a body that ends after a complete part, without its closing boundary', async () => {
    const res = await sendRaw(path(), `${fields()}${part('sourceMap', '{}', 'map.js.map')}`, headers())
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ errors: ['body: ends before its closing boundary: the upload is incomplete'] })
    await stillServing()
  })

  it('400 for a part whose headers are malformed', async () => {
    const res = await sendRaw(path(), `${fields()}--${BOUNDARY}\r\nContent-Disposition: form-data; name="sourceMap"\r\nno colon here\r\n\r\nx\r\n--${BOUNDARY}--\r\n`, headers())
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ errors: ["body: a part's headers are malformed"] })
    await stillServing()
  })

  it('400 for a part without a name', async () => {
    const res = await sendRaw(path(), `${fields()}--${BOUNDARY}\r\nContent-Disposition: form-data; filename="a.map"\r\n\r\n{}\r\n--${BOUNDARY}--\r\n`, headers())
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ errors: ['body: a part has no field name (Content-Disposition: form-data; name="…")'] })
    await stillServing()
  })

  it('forgets an upload whose connection is reset mid-file, and goes on serving', async () => {
    await abortMidFile(path(), `${fields()}${fileStart('sourceMap')}`, headers())
    await stillServing()
    await spoolEmptied()
  })
})

describe('memory held by an upload not yet authorized', () => {
  // Full collections on demand, so that what is measured is what the upload holds, not garbage.
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const held = () => {
    // Twice: the first collection leaves freed buffers' memory to a sweep the second completes.
    gc()
    gc()
    const { heapUsed, external } = process.memoryUsage()
    return heapUsed + external
  }

  const block = randomBytes(1024 * 1024)
  /**
   * A body of `fileBytes` of incompressible file (one random MiB over and over), then an apiKey
   * field, made as it is read; `sample` is called every 8 MiB and once the file has been read.
   */
  function fileThenKey(fileBytes: number, key: string, sample: () => void): ReadableStream<Uint8Array> {
    const blocks = fileBytes / block.length
    let next = -1
    return new ReadableStream({
      pull(controller) {
        next += 1
        if (next === 0) controller.enqueue(new TextEncoder().encode(fileStart('sourceMap')))
        else if (next <= blocks) {
          if (next % 8 === 0) sample()
          controller.enqueue(new Uint8Array(block))
        } else if (next === blocks + 1) {
          sample()
          controller.enqueue(new TextEncoder().encode(`\r\n${part('apiKey', key)}--${BOUNDARY}--\r\n`))
        } else controller.close()
      },
    })
  }

  it('holds far less than the file while it waits for an apiKey sent after it, then answers 401', async () => {
    const fileBytes = 48 * 1024 * 1024
    const before = held()
    let peak = before
    const res = await ctx.app.request('http://errata.test/sourcemap', {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: fileThenKey(fileBytes, 'f'.repeat(32), () => (peak = Math.max(peak, held()))),
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ errors: ['apiKey: no project has this API key'] })
    // The file, gzip'd, would be all of it (it does not compress); a generous margin for the rest.
    expect(peak - before).toBeLessThan(fileBytes / 4)
    await spoolEmptied()
  })
})

describe('uploads in progress from one address', () => {
  it('429 with Retry-After past ERRATA_MAX_UPLOADS_PER_ADDRESS, before the body is read; a finished upload frees its place', async () => {
    const deps = { ...ctx.deps, config: { ...ctx.deps.config, sourceMaps: { ...ctx.deps.config.sourceMaps, uploadsPerAddress: 2 } } }
    const limited = await listen({ app: createApp(deps), deps })
    const { port } = new URL(limited.url)
    const open: ClientRequest[] = []
    try {
      // Two uploads that have sent their key and the start of a file, and wait.
      const answers = [0, 1].map(
        () =>
          new Promise<number>((resolve, reject) => {
            const req = httpRequest(
              { host: '127.0.0.1', port, path: '/sourcemap', method: 'POST', agent: false, headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` } },
              (res) => {
                res.resume()
                resolve(res.statusCode ?? 0)
              },
            )
            req.on('error', reject)
            req.write(`${part('apiKey', apiKey)}${part('minifiedUrl', 'https://cdn.example.com/slow.js')}${fileStart('sourceMap')}{"version":3,`)
            open.push(req)
          }),
      )
      // Destroyed in the end: a rejection then is expected.
      for (const answer of answers) answer.catch(() => {})
      const inProgress = () => uploadsInProgress(deps).get('127.0.0.1') ?? 0
      await until(() => inProgress() === 2)

      const refused = await sendRaw('/sourcemap', `${part('apiKey', apiKey)}--${BOUNDARY}--\r\n`, {}, limited.url)
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('5')
      expect(JSON.parse(refused.body)).toEqual({
        errors: ['uploads: 2 from this address are in progress already (ERRATA_MAX_UPLOADS_PER_ADDRESS); try again in 5 seconds'],
      })

      open[0]!.end(`"sources":[],"mappings":""}\r\n--${BOUNDARY}--\r\n`)
      expect(await answers[0]).toBe(200)
      await until(() => inProgress() === 1)
      const next = await sendRaw('/sourcemap', `${part('apiKey', apiKey)}--${BOUNDARY}--\r\n`, {}, limited.url)
      expect(next.status).toBe(400)
      // The second client goes away mid-file: its place is freed too.
      const gone = answers[1]!.catch(() => 'gone')
      open[1]!.destroy()
      expect(await gone).toBe('gone')
      await until(() => inProgress() === 0)
    } finally {
      for (const req of open) req.destroy()
      await limited.close()
    }
  })
})
