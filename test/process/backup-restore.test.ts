// Backups of the embedded database as an operator makes them: `npm run errata -- backup FILE`
// beside a running server (through its operator socket) or a stopped one, and
// `npm run errata -- restore FILE` into an empty DATA_DIR (server/backup/backup.ts).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as tar from 'tar'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { listMigrations } from '../../server/db/migrate.ts'
import { readJsApp, uploadForm } from '../../server/test-support/source-map-uploads.ts'
import { errataProcesses, freePort, runErrataCommand } from './errata-process.ts'

const ADMIN = { ERRATA_ADMIN_EMAIL: 'admin@example.com', ERRATA_ADMIN_PASSWORD: 'backup test password', ERRATA_ADMIN_TOKEN: 'backup-test-token-0123456789' }
const payload = JSON.parse(readFileSync(new URL('../fixtures/wire/node-notify-handled.body.json', import.meta.url), 'utf8')) as {
  apiKey: string
  events: { context: string }[]
}

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'errata-backup-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

interface Server {
  url: string
  output(): string
  stop(): Promise<void>
}

/** Errata on `dataDir` and a port of its own; stopped after the test, whatever happens. */
async function start(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort()
  const processes = errataProcesses(port, dataDir, { ...ADMIN, ...env })
  cleanups.push(() => processes.killAll())
  const child = await processes.start()
  return { url: `http://127.0.0.1:${port}`, output: () => processes.output(child), stop: () => processes.stop(child) }
}

/** `npm run errata -- ...args` on the embedded database in `dataDir`. */
const errata = (args: string[], dataDir: string) => runErrataCommand(args, { DATA_DIR: dataDir, DATABASE_URL: '' })

/** The admin's API, as the dashboard calls it. */
function api(server: Server) {
  return async <T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: T; total: number }> => {
    const response = await fetch(`${server.url}/api${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `token ${ADMIN.ERRATA_ADMIN_TOKEN}`, 'X-Version': '2', ...(init.json ? { 'Content-Type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : undefined,
    })
    return { status: response.status, body: (await response.json()) as T, total: Number(response.headers.get('X-Total-Count') ?? -1) }
  }
}

/** POST /notify with the recorded Node notifier payload, its context naming it. */
async function notify(server: Server, apiKey: string, context: string): Promise<number> {
  const body = { ...payload, apiKey, events: [{ ...payload.events[0]!, context }] }
  const response = await fetch(`${server.url}/notify`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey, 'Bugsnag-Payload-Version': '4' },
    body: JSON.stringify(body),
  })
  await response.arrayBuffer()
  return response.status
}

/** The contexts of all the project's events (every page). */
async function eventContexts(server: Server, projectId: string): Promise<Set<string>> {
  const seen = new Set<string>()
  let next: string | null = `${server.url}/api/projects/${projectId}/events?per_page=100&full_reports=true`
  while (next) {
    const response: Response = await fetch(next, { headers: { Authorization: `token ${ADMIN.ERRATA_ADMIN_TOKEN}`, 'X-Version': '2' } })
    for (const event of (await response.json()) as { context: string }[]) seen.add(event.context)
    next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('Link') ?? '')?.[1] ?? null
  }
  return seen
}

/** The contexts of the project's events, once every one of `expected` is among them (or after a minute). */
async function waitForEvents(server: Server, projectId: string, expected: readonly string[]): Promise<Set<string>> {
  let seen = new Set<string>()
  await vi
    .waitFor(
      async () => {
        seen = await eventContexts(server, projectId)
        if (!expected.every((context) => seen.has(context))) throw new Error('not all indexed yet')
      },
      { timeout: 60_000, interval: 200 },
    )
    .catch(() => {})
  return seen
}

describe('errata backup and restore (embedded database)', () => {
  it('backs up a running server while events arrive; a wiped DATA_DIR restored from it has every event, upload and setting', { timeout: 600_000 }, async () => {
    const root = tempDir()
    const dataDir = join(root, 'data')
    // The indexer lingers: events acknowledged just before the backup are in the journal only.
    let server = await start(dataDir, { ERRATA_INDEX_LINGER_MS: '3000', ERRATA_WEBHOOK_ALLOW: '127.0.0.1' })
    let call = api(server)

    const org = (await call<{ id: string }>('/user/organizations', { method: 'POST', json: { name: 'Backups' } })).body
    const project = (await call<{ id: string; api_key: string }>(`/organizations/${org.id}/projects`, { method: 'POST', json: { name: 'Shop', type: 'node' } })).body
    expect((await call(`/projects/${project.id}`, { method: 'PATCH', json: { name: 'Shop (restored)' } })).status).toBe(200)
    expect((await call(`/projects/${project.id}/rate_limit`, { method: 'PATCH', json: { events_per_day: 5000 } })).status).toBe(200)
    const created = await call<{ id: string }>(`/projects/${project.id}/webhooks`, { method: 'POST', json: { url: 'http://127.0.0.1:9/errata', triggers: ['exception'] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const webhook = created.body
    expect((await call(`/organizations/${org.id}/collaborators`, { method: 'POST', json: { email: 'dev@example.com', project_ids: [project.id] } })).status).toBe(201)
    const upload = await fetch(`${server.url}/sourcemap`, {
      method: 'POST',
      body: uploadForm({ apiKey: project.api_key, appVersion: '1.2.3', minifiedUrl: 'https://shop.example.com/app.min.js' }, { sourceMap: readJsApp('dist/app.min.js.map') }),
    })
    expect(upload.status).toBe(200)

    // Some events indexed before the backup, and some acknowledged but still in the journal.
    const indexed = Array.from({ length: 10 }, (_, i) => `indexed-${i}`)
    for (const context of indexed) expect(await notify(server, project.api_key, context)).toBe(200)
    expect([...(await waitForEvents(server, project.id, indexed))].sort()).toEqual([...indexed].sort())
    const journaled = Array.from({ length: 10 }, (_, i) => `journaled-${i}`)
    for (const context of journaled) expect(await notify(server, project.api_key, context)).toBe(200)
    const before = [...indexed, ...journaled]

    // The operator socket is the server user's only.
    expect(statSync(join(dataDir, 'errata.sock')).mode & 0o777).toBe(0o600)

    // Events keep arriving while the backup is made.
    let sending = true
    const during: string[] = []
    const sender = (async () => {
      for (let i = 0; sending; i++) {
        if ((await notify(server, project.api_key, `during-${i}`)) === 200) during.push(`during-${i}`)
      }
    })()
    const file = join(root, 'errata.backup.tgz')
    const backup = await errata(['backup', file], dataDir)
    sending = false
    await sender
    expect(backup.stderr, server.output()).toBe('')
    expect(backup.stdout).toMatch(/^Backup written to .*errata\.backup\.tgz \(Errata [\d.]+, schema \d{4}-[\w-]+\.sql, made at .*, while Errata ran\)\.\n$/)
    expect(backup.code).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(existsSync(`${file}.tmp`)).toBe(false)

    // Refused while the server runs: DATA_DIR is in use.
    const busy = await errata(['restore', file], dataDir)
    expect(busy.code).toBe(1)
    expect(busy.stderr).toMatch(/^errata restore: Errata is running on DATA_DIR .* \(pid \d+\): restore into an empty DATA_DIR, with no server on it\n$/)

    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
    const restore = await errata(['restore', file], dataDir)
    expect(restore.stderr).toBe('')
    expect(restore.code).toBe(0)
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)

    server = await start(dataDir, { ERRATA_WEBHOOK_ALLOW: '127.0.0.1' })
    call = api(server)
    // Every event acknowledged before the backup began, those still in the journal then included.
    const seen = await waitForEvents(server, project.id, before)
    for (const context of before) expect(seen).toContain(context)
    // And nothing but what was sent.
    for (const context of seen) expect([...before, ...during]).toContain(context)

    const restored = (await call<{ name: string; type: string }>(`/projects/${project.id}`)).body
    expect(restored).toMatchObject({ name: 'Shop (restored)', type: 'node' })
    expect((await call<{ events_per_day: number }>(`/projects/${project.id}/rate_limit`)).body.events_per_day).toBe(5000)
    expect((await call<{ id: string; url: string }[]>(`/projects/${project.id}/webhooks`)).body).toEqual([expect.objectContaining({ id: webhook.id, url: 'http://127.0.0.1:9/errata' })])
    const collaborators = (await call<{ email: string }[]>(`/organizations/${org.id}/collaborators`)).body
    expect(collaborators.map((c) => c.email)).toContain('dev@example.com')
    const maps = (await call<{ app_version: string }[]>(`/projects/${project.id}/source_maps`)).body
    expect(maps).toEqual([expect.objectContaining({ app_version: '1.2.3' })])
    // New events are indexed on the restored DATA_DIR (the journal goes on after the restored segments).
    expect(await notify(server, project.api_key, 'after-restore')).toBe(200)
    expect(await waitForEvents(server, project.id, ['after-restore'])).toContain('after-restore')
  })

  it('backs up a stopped server, and refuses to overwrite a file, to restore into a DATA_DIR that is not empty or a backup of a newer schema', { timeout: 300_000 }, async () => {
    const root = tempDir()
    const dataDir = join(root, 'data')
    const server = await start(dataDir)
    await server.stop()
    const file = join(root, 'stopped.tgz')
    const offline = await errata(['backup', file], dataDir)
    expect(offline.stderr).toBe('')
    expect(offline.stdout).toMatch(/^Backup written to .*stopped\.tgz \(Errata [\d.]+, schema \d{4}-[\w-]+\.sql, made at [^,]*\)\.\n$/)

    const again = await errata(['backup', file], dataDir)
    expect(again).toMatchObject({ code: 1, stderr: `errata backup: ${file} exists: give another name, or add --force to replace it\n` })
    expect((await errata(['backup', file, '--force'], dataDir)).code).toBe(0)

    const notEmpty = await errata(['restore', file], dataDir)
    expect(notEmpty).toMatchObject({ code: 1, stderr: `errata restore: DATA_DIR ${dataDir} is not empty: restore into an empty or new directory (and point DATA_DIR at it)\n` })

    // A backup of a schema newer than this release's is refused, and nothing is left behind.
    const unpacked = join(root, 'unpacked')
    mkdirSync(unpacked)
    await tar.extract({ file, cwd: unpacked })
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(unpacked, 'manifest.json'), JSON.stringify({ ...manifest, errata_version: '9.0.0', schema: '9999-from-the-future.sql' }))
    const future = join(root, 'future.tgz')
    await tar.create({ gzip: true, file: future, cwd: unpacked }, readdirSync(unpacked))
    const futureDir = join(root, 'future-data')
    expect(await errata(['restore', future], futureDir)).toMatchObject({
      code: 1,
      stderr: `errata restore: ${future} was made by a newer Errata (9.0.0, schema 9999-from-the-future.sql); this one knows up to ${listMigrations().at(-1)!.name}: restore it with that release or a later one\n`,
    })
    expect(existsSync(futureDir)).toBe(false)

    const emptyDir = join(root, 'empty')
    mkdirSync(emptyDir)
    const notBackup = join(root, 'not-a-backup.tgz')
    writeFileSync(notBackup, 'hello')
    const bad = await errata(['restore', notBackup], emptyDir)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^errata restore: .*not-a-backup\.tgz is not a readable Errata backup \(.*\)\n$/)

    const missing = await errata(['backup', join(root, 'nowhere', 'b.tgz')], dataDir)
    expect(missing).toMatchObject({ code: 1, stderr: `errata backup: the directory ${join(root, 'nowhere')} does not exist\n` })
    const noDatabase = await errata(['backup', join(root, 'b.tgz')], emptyDir)
    expect(noDatabase).toMatchObject({ code: 1, stderr: `errata backup: DATA_DIR ${emptyDir} holds no Errata database; set DATA_DIR as for the server\n` })
    expect(await errata(['backup'], dataDir)).toMatchObject({ code: 1, stderr: 'errata backup: give one file to write: npm run errata -- backup FILE [--force]\n' })
  })

  it('points PostgreSQL at pg_dump and pg_restore', async () => {
    const env = { DATABASE_URL: 'postgres://errata@127.0.0.1:1/errata' }
    const message = 'DATABASE_URL is set: back up and restore PostgreSQL with pg_dump and pg_restore (docs/operations.md, "Backups and restore")'
    expect(await runErrataCommand(['backup', join(tmpdir(), 'never.tgz')], env)).toMatchObject({ code: 1, stderr: `errata backup: ${message}\n` })
    expect(await runErrataCommand(['restore', join(tmpdir(), 'never.tgz')], env)).toMatchObject({ code: 1, stderr: `errata restore: ${message}\n` })
  })
})

