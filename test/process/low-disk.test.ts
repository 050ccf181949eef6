// A server whose DATA_DIR is on a small file system made for the test (tmpfs; the tests run as
// root): filled past ERRATA_MIN_FREE_DISK, it refuses events with 503 and Retry-After and uploads
// with 507; once the filler is removed it accepts events again by itself, and every event it
// acknowledged before is there. On the embedded database, and on PostgreSQL (DATA_DIR then holds
// nothing of the database, but is guarded all the same) when TEST_DATABASE_URL names a server.
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJsApp, uploadForm } from '../../server/test-support/source-map-uploads.ts'
import { freePort, until } from './errata-process.ts'

const root = join(import.meta.dirname, '../..')
const adminToken = 'd'.repeat(40)
const serverUrl = process.env.TEST_DATABASE_URL
const MiB = 1024 ** 2

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

describe.each([serverUrl ? 'postgres' : 'pglite'])('low on disk space (%s)', (engine) => {
  // The small file system, and DATA_DIR in it; a port and (PostgreSQL) a database of this run's own.
  const mountPoint = mkdtempSync(join(tmpdir(), 'errata-low-disk-'))
  const dataDir = join(mountPoint, 'data')
  const filler = join(mountPoint, 'filler')
  const scratchName = `errata_low_disk_${randomBytes(6).toString('hex')}`
  let databaseUrl = ''
  let base = ''
  let mounted = false
  let child: ChildProcessWithoutNullStreams | undefined
  let output = ''

  beforeAll(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256m,mode=0700', 'tmpfs', mountPoint])
    mounted = true
    base = `http://127.0.0.1:${await freePort()}`
    if (engine === 'pglite') return
    // Nothing of the database lives in DATA_DIR on PostgreSQL: it exists, so it is guarded.
    mkdirSync(dataDir, { mode: 0o700 })
    await onServer(`CREATE DATABASE ${scratchName}`)
    const url = new URL(serverUrl!)
    url.pathname = `/${scratchName}`
    databaseUrl = url.toString()
  })

  afterAll(async () => {
    // Also after a failure: the process, the file system, the directory, the database.
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    }
    if (mounted) execFileSync('umount', [mountPoint])
    rmSync(mountPoint, { recursive: true, force: true })
    if (engine === 'postgres') await onServer(`DROP DATABASE IF EXISTS ${scratchName} WITH (FORCE)`)
  })

  async function startServer(): Promise<void> {
    const port = new URL(base).port
    child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: port,
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        ERRATA_ADMIN_EMAIL: 'disk@example.com',
        ERRATA_ADMIN_TOKEN: adminToken,
        ERRATA_MIN_FREE_DISK: '32MiB',
        ERRATA_DISK_CHECK_MS: '200',
        LOG_LEVEL: 'warn',
      },
    })
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await until(
      () => output.includes('Errata is running'),
      () => `the server did not start:\n${output}`,
      () => (child!.exitCode !== null ? `the server exited early:\n${output}` : null),
      120_000,
      50,
    )
  }

  const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; next: string | null }> => {
    const res = await fetch(path.startsWith('http') ? path : `${base}/api${path}`, {
      ...init,
      headers: { Authorization: `token ${adminToken}`, 'X-Version': '2', 'Content-Type': 'application/json' },
    })
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('Link') ?? '')?.[1] ?? null
    return { status: res.status, body: (await res.json()) as T, next }
  }

  const notify = (apiKey: string, errorClass: string) =>
    fetch(`${base}/notify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
      body: JSON.stringify({ payloadVersion: '4', events: [{ exceptions: [{ errorClass, message: 'x', stacktrace: [] }] }] }),
    })

  /** Fills the file system until `leftBytes` are free (written, so tmpfs really holds them). */
  async function fill(leftBytes: number): Promise<void> {
    const { bavail, bsize } = statfsSync(mountPoint)
    let remaining = bavail * bsize - leftBytes
    const chunk = Buffer.alloc(4 * MiB, 1)
    const file = await open(filler, 'w')
    try {
      while (remaining > 0) {
        const { bytesWritten } = await file.write(chunk, 0, Math.min(chunk.length, remaining))
        remaining -= bytesWritten
      }
    } finally {
      await file.close()
    }
  }

  it('refuses events (503, Retry-After) and uploads (507) below the threshold, keeps what it acknowledged, and recovers by itself', { timeout: 300_000 }, async () => {
    await startServer()
    const org = await api<{ id: string }>('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Disk' }) })
    const project = await api<{ id: string; api_key: string }>(`/organizations/${org.body.id}/projects`, { method: 'POST', body: JSON.stringify({ name: 'Full', type: 'node' }) })
    const { id: projectId, api_key: apiKey } = project.body

    const acknowledged: string[] = []
    const send = async (errorClass: string) => {
      const res = await notify(apiKey, errorClass)
      if (res.status === 200) acknowledged.push(errorClass)
      return res
    }
    for (let i = 0; i < 20; i++) expect((await send(`Before_${i}`)).status).toBe(200)

    await fill(16 * MiB)
    const lowSince = Date.now()
    // The guard looks every 200 ms: events sent meanwhile may still be acknowledged (and must be kept).
    let refused: Response | undefined
    let n = 0
    await until(
      async () => {
        const res = await send(`Filling_${n++}`)
        if (res.status === 503) refused = res
        else expect(res.status).toBe(200)
        return refused !== undefined
      },
      () => `events were still accepted with less than 32 MiB free:\n${output}`,
      undefined,
      60_000,
      50,
    )
    expect(Number(refused!.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(await refused!.json()).toEqual({ errors: [expect.stringContaining('low on disk space')] })
    // Each refused: the log does not say so for each.
    for (let i = 0; i < 20; i++) expect((await send(`Refused_${i}`)).status).toBe(503)
    const sessions = await fetch(`${base}/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey }, body: '{}' })
    expect(sessions.status).toBe(503)
    expect(sessions.headers.get('Retry-After')).not.toBeNull()

    for (const path of ['/sourcemap', '/react-native-source-map']) {
      const form = uploadForm({ apiKey, appVersion: '1.0.0', minifiedUrl: 'https://cdn.example.com/app.min.js' }, { sourceMap: readJsApp('dist/app.min.js.map') })
      const upload = await fetch(`${base}${path}`, { method: 'POST', body: form })
      expect(upload.status, path).toBe(507)
      expect(await upload.json()).toEqual({ errors: [expect.stringContaining('low on disk space')] })
    }
    const ready = (await (await fetch(`${base}/readyz`)).json()) as { status: string; storage: { data_dir_disk: { low: boolean; min_free_bytes: number } } }
    expect(ready).toMatchObject({ status: 'degraded', storage: { data_dir_disk: { low: true, min_free_bytes: 32 * MiB } } })
    expect(output).toContain('DATA_DIR is low on disk space')

    // Space returns: ingestion recovers by itself.
    await rm(filler)
    await until(
      async () => (await send(`After_${n++}`)).status === 200,
      () => `events were still refused after the filler was removed:\n${output}`,
      undefined,
      60_000,
      50,
    )
    await until(
      () => output.includes('DATA_DIR has free disk space again'),
      () => `the recovery was not logged:\n${output}`,
    )
    // The log said so once a minute at most, not once per refused request.
    const lowMinutes = Math.floor((Date.now() - lowSince) / 60_000)
    expect(output.split('DATA_DIR is low on disk space').length - 1).toBeLessThanOrEqual(lowMinutes + 1)

    // Every acknowledged event is there, once.
    await until(
      async () => ((await (await fetch(`${base}/readyz`)).json()) as { ingest_queue?: { pending: number } }).ingest_queue?.pending === 0,
      () => 'the acknowledged events were not indexed',
    )
    const classes = new Map<string, number>()
    for (let url: string | null = `/projects/${projectId}/errors?per_page=100`; url; ) {
      const errors: { body: Array<{ error_class: string; events: number }>; next: string | null } = await api(url)
      for (const error of errors.body) classes.set(error.error_class, error.events)
      url = errors.next
    }
    for (const errorClass of acknowledged) expect(classes.get(errorClass), errorClass).toBe(1)
    expect(classes.size).toBe(acknowledged.length)
  })
})
