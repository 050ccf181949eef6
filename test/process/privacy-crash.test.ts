// kill -9 in the middle of a privacy deletion and of a retrieval export: after a restart both
// finish, with exactly the right result (nothing deleted or exported twice, nothing missed).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { errataProcesses, freePort, until } from './errata-process.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'errata-privacy-crash-'))
// A port of this file's own, from the system.
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const adminToken = 'k'.repeat(40)
const errata = errataProcesses(port, dataDir, {
  ERRATA_ADMIN_EMAIL: 'ops@example.com',
  ERRATA_ADMIN_TOKEN: adminToken,
  // Small privacy batches, so a kill lands mid-job.
  ERRATA_PRIVACY_BATCH_SIZE: '10',
})

afterAll(() => {
  errata.killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

async function api<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${base}/api${path}`, {
    ...init,
    headers: { Authorization: `token ${adminToken}`, 'X-Version': '2', 'Content-Type': 'application/json' },
  })
  const text = await res.text()
  return { status: res.status, body: (text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text) as T, headers: res.headers }
}

const userFilter = (id: string) => `filters[user.id][][type]=eq&filters[user.id][][value]=${id}`
const PER_USER = 600

describe('privacy requests across a crash', () => {
  it('a deletion and a retrieval cut off by kill -9 finish exactly once after a restart', { timeout: 180_000 }, async () => {
    let server = await errata.start()
    const org = (await api<{ id: string }>('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Crash Org' }) })).body
    const project = (
      await api<{ id: string; api_key: string }>(`/organizations/${org.id}/projects`, {
        method: 'POST',
        body: JSON.stringify({ name: 'Crash Project', type: 'node' }),
      })
    ).body

    // 600 events each for Alice and Bob, over five errors, through ingestion.
    for (let request = 0; request < (2 * PER_USER) / 100; request++) {
      const events = Array.from({ length: 100 }, (_, i) => {
        const n = request * 100 + i
        const user = n % 2 === 0 ? { id: 'alice', email: 'alice@example.com' } : { id: 'bob', email: 'bob@example.com' }
        return {
          exceptions: [{ errorClass: `CrashError${n % 5}`, message: `event ${n}`, stacktrace: [{ file: 'app.js', method: 'run', lineNumber: 1, inProject: true }] }],
          user,
          device: { id: `device-${user.id}`, osName: 'linux' },
          metaData: { order: { n } },
        }
      })
      const res = await fetch(`${base}/notify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': project.api_key },
        body: JSON.stringify({ events }),
      })
      expect(res.status).toBe(200)
    }
    const total = async () => Number((await api(`/projects/${project.id}/events?per_page=1`)).headers.get('X-Total-Count'))
    await until(async () => (await total()) === 2 * PER_USER, () => 'the events were not all indexed')

    // Deletion of Alice's events, killed once some batches have committed.
    const deletion = (
      await api<{ id: string }>(`/organizations/${org.id}/event_data_deletions?${userFilter('alice')}&skip_confirmation=true`, { method: 'POST' })
    ).body
    const deletionState = async () =>
      (await api<{ status: string; deleted_events: number; total: number | null }>(`/organizations/${org.id}/event_data_deletions/${deletion.id}`)).body
    let atKill = await deletionState()
    await until(
      async () => {
        atKill = await deletionState()
        return atKill.status === 'ACCEPTED' && atKill.deleted_events > 0
      },
      () => `the deletion never got under way: ${JSON.stringify(atKill)}`,
      () => (atKill.status === 'COMPLETED' ? 'the deletion completed before it could be interrupted' : null),
    )
    await errata.killHard(server)
    server = await errata.start()
    const cutAt = await deletionState()
    expect(cutAt.deleted_events).toBeGreaterThan(0)
    expect(cutAt.deleted_events).toBeLessThan(PER_USER)
    let deleted = cutAt
    await until(
      async () => (deleted = await deletionState()).status === 'COMPLETED',
      () => `the deletion did not complete after the restart: ${JSON.stringify(deleted)}`,
    )
    // Exactly Alice's events, counted once each across the two runs.
    expect(deleted).toMatchObject({ status: 'COMPLETED', total: PER_USER, deleted_events: PER_USER })
    expect(await total()).toBe(PER_USER)
    expect((await api(`/projects/${project.id}/events?per_page=1&${userFilter('alice')}`)).headers.get('X-Total-Count')).toBe('0')
    const errors = (await api<{ events: number; users: number }[]>(`/projects/${project.id}/errors?per_page=100&filters[error.status][][type]=eq&filters[error.status][][value]=open`)).body
    expect(errors).toHaveLength(5)
    expect(errors.reduce((sum, e) => sum + e.events, 0)).toBe(PER_USER)
    expect(errors.every((e) => e.users === 1)).toBe(true)
    const users = (await api<{ event_field_value: string; events: number }[]>(`/projects/${project.id}/pivots/user.id/values`)).body
    expect(users.map((u) => [u.event_field_value, u.events])).toEqual([['bob', PER_USER]])

    // Retrieval of Bob's events, killed while its file is being written.
    const retrieval = (await api<{ id: string }>(`/organizations/${org.id}/event_data_requests?${userFilter('bob')}`, { method: 'POST' })).body
    const filesDir = join(dataDir, 'event-data')
    const files = () => (existsSync(filesDir) ? readdirSync(filesDir) : [])
    const retrievalState = async () =>
      (await api<{ status: string; total: number | null; url?: string }>(`/organizations/${org.id}/event_data_requests/${retrieval.id}`)).body
    await until(
      () => files().some((name) => name.startsWith(retrieval.id) && name.endsWith('.partial')),
      () => `the export never started writing: ${files().join(', ')}`,
      () => (files().some((name) => name.startsWith(retrieval.id) && name.endsWith('.jsonl.gz')) ? 'the export completed before it could be interrupted' : null),
      60_000,
      2,
    )
    await errata.killHard(server)
    expect(files()).toEqual([expect.stringMatching(/\.partial$/)])
    server = await errata.start()
    let exported = await retrievalState()
    await until(
      async () => (exported = await retrievalState()).status === 'COMPLETED',
      () => `the retrieval did not complete after the restart: ${JSON.stringify(exported)}`,
    )
    expect(exported.total).toBe(PER_USER)
    // One file, the finished one: the cut-off run's part is gone.
    expect(files()).toEqual([expect.stringMatching(new RegExp(`^${retrieval.id}-.*\\.jsonl\\.gz$`))])
    const download = await fetch(exported.url!, { headers: { Authorization: `token ${adminToken}`, 'X-Version': '2' } })
    expect(download.status).toBe(200)
    const lines = (await download.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { event_id: string; user: { id: string } })
    expect(lines).toHaveLength(PER_USER)
    expect(new Set(lines.map((l) => l.event_id)).size).toBe(PER_USER)
    expect(lines.every((l) => l.user.id === 'bob')).toBe(true)
    await errata.stop(server)
  })
})
