import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon, { type Result as LoadResult } from 'autocannon'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { freePorts, until } from './errata-process.ts'

const root = join(import.meta.dirname, '../..')
const adminToken = 'p'.repeat(40)
// Each test's own data directory and ports (`otherPort` for a second process), from the system.
let dataDir = ''
let port = 0
let otherPort = 0
let base = ''
const children = new Set<ChildProcessWithoutNullStreams>()

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'errata-process-'))
  ;[port, otherPort] = (await freePorts(2)) as [number, number]
  base = `http://127.0.0.1:${port}`
})
afterEach(async () => {
  // Whatever a test left running (it failed half way), then its directory.
  await Promise.all([...children].map((child) => {
    const done = exited(child)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    return done
  }))
  children.clear()
  rmSync(dataDir, { recursive: true, force: true })
})

/** Spawns `server/main.ts` as `npm start` does (without the dashboard build). */
function spawnServer(env: { PORT: string; DATA_DIR: string; LOG_LEVEL?: string; ERRATA_REQUEST_LOG?: string }): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      ERRATA_ADMIN_EMAIL: 'ops@example.com',
      ERRATA_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...env,
    },
  })
  children.add(child)
  return child
}

/** Everything the process prints from now on, stdout and stderr together. */
function collectOutput(child: ChildProcessWithoutNullStreams): () => string {
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return () => output
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode)
    else child.once('exit', (code) => resolve(code))
  })

/** What a process printed until it exited, and its exit code. */
async function runToExit(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; output: string }> {
  const output = collectOutput(child)
  const code = await exited(child)
  return { code, output: output() }
}

/** A GET as an HTTP/1.0 client sends it, with no Host header; the whole raw answer. */
function rawHttp10(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.0\r\nAuthorization: token ${adminToken}\r\nX-Version: 2\r\n\r\n`)
    })
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

/** Starts the server on this test's port and data directory, and waits until it listens. */
async function startServer(env: { LOG_LEVEL?: string; ERRATA_REQUEST_LOG?: string } = {}): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string }> {
  const child = spawnServer({ PORT: String(port), DATA_DIR: dataDir, ...env })
  const output = collectOutput(child)
  await until(
    () => output().includes('Errata is running'),
    () => `server did not start:\n${output()}`,
    () => (child.exitCode !== null ? `server exited early:\n${output()}` : null),
    // A start on a loaded machine (other test files running beside it) can take a minute.
    120_000,
  )
  return { child, output }
}

/** Entries under `dir` (itself included) that are not owner-only (0700 directories, 0600 files). */
function notPrivate(dir: string): string[] {
  const stat = lstatSync(dir)
  const mode = stat.mode & 0o777
  if (stat.isDirectory()) return [...(mode === 0o700 ? [] : [`${mode.toString(8)} ${dir}`]), ...readdirSync(dir).flatMap((name) => notPrivate(join(dir, name)))]
  return stat.isFile() && mode !== 0o600 ? [`${mode.toString(8)} ${dir}`] : []
}

const api = async (path: string, init: RequestInit = {}) =>
  fetch(`${base}/api${path}`, {
    ...init,
    headers: { Authorization: `token ${adminToken}`, 'X-Version': '2', 'Content-Type': 'application/json' },
  })


/**
 * A client on one kept-alive connection sending GET /healthz again as soon as it has the answer,
 * until the server answers with Connection: close or the connection closes; it records when each
 * request was sent, whether it was answered, and errors (a reset) with the request then outstanding.
 */
function keepAliveClient() {
  const socket = connect(port, '127.0.0.1')
  const client = {
    socket,
    requests: [] as Array<{ sentAt: number; answered: boolean }>,
    failures: [] as Array<{ code: string; sentAt: number }>,
    closed: false,
    toldToClose: false,
    answered: () => client.requests.filter((r) => r.answered).length,
  }
  let buffered = Buffer.alloc(0)
  const send = () => {
    client.requests.push({ sentAt: Date.now(), answered: false })
    socket.write('GET /healthz HTTP/1.1\r\nHost: errata.test\r\n\r\n')
  }
  socket.on('connect', send)
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    for (;;) {
      const headEnd = buffered.indexOf('\r\n\r\n')
      if (headEnd < 0) return
      const head = buffered.subarray(0, headEnd).toString()
      const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? NaN)
      let end: number
      if (Number.isFinite(length)) end = headEnd + 4 + length
      else {
        const last = buffered.indexOf('\r\n0\r\n\r\n', headEnd)
        end = last < 0 ? Infinity : last + 7
      }
      if (buffered.length < end) return
      buffered = buffered.subarray(end)
      const request = client.requests.find((r) => !r.answered)
      if (request) request.answered = true
      if (/^connection: *close/im.test(head)) client.toldToClose = true
      else send()
    }
  })
  socket.on('error', (err: NodeJS.ErrnoException) => {
    const outstanding = client.requests.find((r) => !r.answered)
    if (outstanding) client.failures.push({ code: err.code ?? err.message, sentAt: outstanding.sentAt })
  })
  socket.on('close', () => (client.closed = true))
  return client
}

// Each test starts the server once or twice: on a loaded 2-core machine a start alone can take 30 s.
describe('the server process', { timeout: 180_000 }, () => {
  it('finishes an in-flight event on SIGTERM, exits cleanly, and keeps the event across a restart', async () => {
    // Logged at info: the test sends the rest of the event once the server says it is stopping.
    const first = await startServer({ LOG_LEVEL: 'info', ERRATA_REQUEST_LOG: 'off' })
    expect(first.output()).toContain('First admin created.')
    expect(first.output()).toContain('email:       ops@example.com')

    const org = await (await api('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Ops' }) })).json()
    const project = await (
      await api(`/organizations/${org.id}/projects`, { method: 'POST', body: JSON.stringify({ name: 'Worker', type: 'node' }) })
    ).json()

    const body = JSON.stringify({
      apiKey: project.api_key,
      events: [{ exceptions: [{ errorClass: 'ShutdownError', message: 'sent during shutdown', stacktrace: [] }] }],
    })
    // A chunked POST that is still being sent when the signal arrives: the server has the request
    // once it answers `100 Continue`; the rest of the body goes once it says it is stopping.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${base}/notify`, { method: 'POST', headers: { 'Content-Type': 'application/json', Expect: '100-continue' } }, (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.on('error', reject)
      req.on('continue', () => {
        req.write(body.slice(0, 20))
        first.child.kill('SIGTERM')
        until(
          () => first.output().includes('shutting down'),
          () => `the server did not say it was stopping:\n${first.output()}`,
        ).then(() => req.end(body.slice(20)), reject)
      })
    })
    expect(await answer).toEqual({ status: 200, text: 'OK' })
    expect(await exited(first.child)).toBe(0)

    const second = await startServer()
    try {
      // The admin exists already: a restart must not create another one.
      expect(second.output()).not.toContain('First admin created')
      const events = await (await api(`/projects/${project.id}/events`)).json()
      expect(events).toEqual([expect.objectContaining({ exceptions: [expect.objectContaining({ class: 'ShutdownError' })] })])
    } finally {
      second.child.kill('SIGTERM')
      expect(await exited(second.child)).toBe(0)
    }
    // Everything the server wrote in its data directory is its user's only.
    expect(notPrivate(dataDir)).toEqual([])
  })

  it('stops on SIGTERM while clients keep sending on kept-alive connections', async () => {
    const server = await startServer()
    // 20 connections that never pause (autocannon, as a load balancer or a busy notifier would):
    // without being told to close, they would keep the stopping server busy for as long as they send.
    let signalledAt = 0
    let exitedAt = 0
    const processExit = exited(server.child).then((code) => {
      exitedAt = Date.now()
      return code
    })
    const load = await new Promise<LoadResult>((resolve, reject) => {
      const clients = autocannon({ url: `${base}/healthz`, connections: 20, duration: 15 }, (err, result) =>
        err ? reject(err) : resolve(result),
      )
      // The signal once the clients are busy: a hundred answers in.
      let answers = 0
      clients.on('response', () => {
        if (++answers !== 100) return
        signalledAt = Date.now()
        server.child.kill('SIGTERM')
      })
      void processExit.then(() => clients.stop())
    })
    expect(await processExit).toBe(0)
    expect(load['2xx']).toBeGreaterThan(0)
    // Before the clients stopped on their own: they were told to close and let go, none had to be cut at the 10 s cut-off.
    expect(exitedAt).toBeGreaterThan(signalledAt)
    expect(server.output()).not.toContain('were cut')
  })

  it('answers every request sent before SIGTERM on kept-alive connections, then closes them cleanly', async () => {
    // Logged at info: when the server began to stop, on the same clock as the clients'.
    const server = await startServer({ LOG_LEVEL: 'info', ERRATA_REQUEST_LOG: 'off' })
    const clients = Array.from({ length: 8 }, () => keepAliveClient())
    try {
      await until(() => clients.every((c) => c.answered() >= 5), () => 'not every client has answers')
      server.child.kill('SIGTERM')
      await until(() => clients.every((c) => c.closed), () => 'not every client was closed')
      expect(await exited(server.child)).toBe(0)
      const stopping = /^\{.*"msg":"shutting down.*$/m.exec(server.output())
      const closeBegan = Date.parse(JSON.parse(stopping![0]).time)
      for (const client of clients) {
        // Whatever a client sent before the server began to stop was answered, none was reset;
        // a request sent after may meet a closed connection instead.
        expect(client.requests.filter((r) => r.sentAt < closeBegan && !r.answered)).toEqual([])
        expect(client.failures.filter((f) => f.sentAt < closeBegan)).toEqual([])
      }
      // The server said it was closing: answers carried Connection: close.
      expect(clients.some((c) => c.toldToClose)).toBe(true)
    } finally {
      for (const client of clients) client.socket.destroy()
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  })

  it('refuses a second process on the same DATA_DIR or port; the running one loses nothing', async () => {
    const running = await startServer()
    try {
      const otherDir = mkdtempSync(join(tmpdir(), 'errata-process-other-'))
      try {
        // Same data directory, free port: refused before it touches the database or the journal.
        const sameDir = await runToExit(spawnServer({ PORT: String(otherPort), DATA_DIR: dataDir }))
        expect(sameDir.code).toBe(1)
        expect(sameDir.output).toContain(`DATA_DIR ${dataDir} is in use by another Errata process (pid ${running.child.pid})`)
        // A data directory of another user: refused, with the reason.
        const foreign = process.getuid!() === 0 ? join(otherDir, 'foreign') : '/'
        if (foreign !== '/') {
          mkdirSync(foreign)
          chownSync(foreign, 65534, 65534)
        }
        const foreignDir = await runToExit(spawnServer({ PORT: String(otherPort), DATA_DIR: foreign }))
        expect(foreignDir.code).toBe(1)
        expect(foreignDir.output).toContain(`Errata failed to start: DATA_DIR ${foreign} is owned by another user`)
        // Same port, own data directory: a clear message, not a stack trace.
        const samePort = await runToExit(spawnServer({ PORT: String(port), DATA_DIR: otherDir }))
        expect(samePort.code).toBe(1)
        expect(samePort.output).toContain(`127.0.0.1:${port} is already in use (is Errata already running?); set PORT`)
      } finally {
        rmSync(otherDir, { recursive: true, force: true })
      }

      // The running process still acknowledges and keeps events.
      const org = await (await api('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Ops' }) })).json()
      const project = await (await api(`/organizations/${org.id}/projects`, { method: 'POST', body: JSON.stringify({ name: 'Worker', type: 'node' }) })).json()
      const notify = await fetch(`${base}/notify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': project.api_key },
        body: JSON.stringify({ events: [{ exceptions: [{ errorClass: 'AfterRefusal', message: 'kept', stacktrace: [] }] }] }),
      })
      expect(notify.status).toBe(200)
      await expect
        .poll(async () => (await (await api(`/projects/${project.id}/events?per_page=100`)).json()).map((e: { exceptions: { class: string }[] }) => e.exceptions[0]!.class))
        .toContain('AfterRefusal')

      // HTTP/1.0 without a Host header: addresses in the answer still carry this server's port.
      const raw = await rawHttp10(`/api/projects/${project.id}/events?per_page=1`)
      expect(raw).toMatch(/^HTTP\/1\.1 200 /)
      expect(raw).toContain(`"url":"http://127.0.0.1:${port}/api/projects/${project.id}/events/`)
    } finally {
      running.child.kill('SIGTERM')
      expect(await exited(running.child)).toBe(0)
    }
    // Stopped cleanly: the lock is gone and the next start takes the directory.
    expect(existsSync(join(dataDir, 'errata.pid'))).toBe(false)
  })
})
