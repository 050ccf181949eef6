// kill -9 in the middle of ingestion: every event that was answered 200 is there after a
// restart, indexed exactly once. On the embedded database (its journal), and on PostgreSQL (ingest_log)
// when TEST_DATABASE_URL names a server (a scratch database is made for it).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, until } from './errata-process.ts'

const root = join(import.meta.dirname, '../..')
const adminToken = 'k'.repeat(40)
const serverUrl = process.env.TEST_DATABASE_URL

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

describe.each([serverUrl ? 'ingest_log' : 'journal'])('kill -9 during ingestion (accepted-event log: %s)', (ingestLog) => {
  // A data directory and a port of this run's own.
  const dataDir = mkdtempSync(join(tmpdir(), 'errata-kill-'))
  let port = 0
  let base = ''
  let databaseUrl = ''
  const scratchName = `errata_kill_${randomBytes(6).toString('hex')}`
  const children = new Set<ChildProcessWithoutNullStreams>()

  beforeAll(async () => {
    port = await freePort()
    base = `http://127.0.0.1:${port}`
    if (!serverUrl) return
    await onServer(`CREATE DATABASE ${scratchName}`)
    const url = new URL(serverUrl)
    url.pathname = `/${scratchName}`
    databaseUrl = url.toString()
  })

  afterAll(async () => {
    // Whatever is still running, also after a failure (a start that timed out included).
    await Promise.all(
      [...children].filter((child) => child.exitCode === null && child.signalCode === null).map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGKILL')
        return exited
      }),
    )
    rmSync(dataDir, { recursive: true, force: true })
    if (serverUrl) await onServer(`DROP DATABASE IF EXISTS ${scratchName} WITH (FORCE)`)
  })

  function startServer(): Promise<ChildProcessWithoutNullStreams> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        ERRATA_ADMIN_EMAIL: 'kill@example.com',
        ERRATA_ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'warn',
      },
    })
    children.add(child)
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    return new Promise((resolve, reject) => {
      const deadline = Date.now() + 120_000
      const check = () => {
        if (output.includes('Errata is running')) return resolve(child)
        if (child.exitCode !== null) return reject(new Error(`server exited early:\n${output}`))
        if (Date.now() > deadline) return reject(new Error(`server did not start:\n${output}`))
        setTimeout(check, 100)
      }
      check()
    })
  }

  const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; total: string | null; next: string | null }> => {
    const res = await fetch(path.startsWith('http') ? path : `${base}/api${path}`, {
      ...init,
      headers: { Authorization: `token ${adminToken}`, 'X-Version': '2', 'Content-Type': 'application/json' },
    })
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('Link') ?? '')?.[1] ?? null
    return { status: res.status, body: (await res.json()) as T, total: res.headers.get('X-Total-Count'), next }
  }

  /** POSTs one event; its status, or 0 when the connection broke (the kill). */
  function post(body: string): Promise<number> {
    return new Promise((resolve) => {
      const req = request(`${base}/notify`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', () => resolve(0))
      })
      req.on('error', () => resolve(0))
      req.end(body)
    })
  }

  it('keeps every acknowledged event, indexed exactly once, across the restart', { timeout: 300_000 }, async () => {
    let server = await startServer()
    try {
      const org = await api<{ id: string }>('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Kill' }) })
      const project = await api<{ id: string; api_key: string }>(`/organizations/${org.body.id}/projects`, {
        method: 'POST',
        body: JSON.stringify({ name: 'Killed', type: 'node' }),
      })
      const { id: projectId, api_key: apiKey } = project.body

      // 8 senders, each event of its own error class; the kill comes once some have been answered.
      const acknowledged: string[] = []
      let sent = 0
      let stop = false
      const sender = async (worker: number) => {
        for (let i = 0; !stop; i++) {
          const errorClass = `Killed_${worker}_${i}`
          sent += 1
          const body = JSON.stringify({ apiKey, events: [{ exceptions: [{ errorClass, message: 'x', stacktrace: [] }] }] })
          const status = await post(body)
          if (status === 200) acknowledged.push(errorClass)
          else if (status === 0) return
        }
      }
      let sendersDone = false
      const senders = Promise.all(Array.from({ length: 8 }, (_, w) => sender(w))).finally(() => (sendersDone = true))
      await until(
        () => acknowledged.length >= 300,
        () => `only ${acknowledged.length} events were acknowledged`,
        () => (sendersDone ? `the senders stopped after ${acknowledged.length} acknowledged events` : null),
        120_000,
        20,
      )
      // Listened for before the kill: the exit may come while the senders finish.
      const killed = new Promise((resolve) => server.once('exit', resolve))
      server.kill('SIGKILL')
      stop = true
      await senders
      await killed

      server = await startServer()
      // Indexed: poll until nothing is pending.
      const deadline = Date.now() + 120_000
      for (;;) {
        const health = (await (await fetch(`${base}/readyz`)).json().catch(() => null)) as {
          ingest_queue?: { pending: number }
          ingest_journal?: unknown
        } | null
        if (health?.ingest_queue?.pending === 0) {
          // The journal's disk is reported exactly when the process journals.
          expect(health.ingest_journal !== undefined).toBe(ingestLog === 'journal')
          break
        }
        if (Date.now() > deadline) throw new Error('the backlog was not indexed after the restart')
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      const classes = new Map<string, number>()
      for (let url: string | null = `/projects/${projectId}/errors?per_page=100`; url; ) {
        const errors: { body: Array<{ error_class: string; events: number }>; next: string | null } = await api(url)
        for (const error of errors.body) classes.set(error.error_class, error.events)
        url = errors.next
      }
      for (const errorClass of acknowledged) expect(classes.get(errorClass), errorClass).toBe(1)
      // Nothing beyond what was sent, and each stored event once.
      expect(classes.size).toBeLessThanOrEqual(sent)
      expect([...classes.values()].every((events) => events === 1)).toBe(true)
      const events = await api<unknown[]>(`/projects/${projectId}/events?per_page=1`)
      expect(Number(events.total)).toBe(classes.size)
    } finally {
      server.kill('SIGKILL')
    }
  })
})
