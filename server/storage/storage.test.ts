// Disk use through the API (a project's, this server's, in /readyz) and the low disk guard's
// answers through the app: 503 with Retry-After for events, 507 for uploads, before anything is
// written. The guard is given a file system it is told about; test/process/low-disk.test.ts fills
// a real one.
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectStorageSchema, serverStorageSchema } from '../../contract/storage.ts'
import { createApp } from '../app.ts'
import { eventDataRequests, events, sourceMaps } from '../db/schema.ts'
import { newId } from '../db/ids.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { seedEvents } from '../test-support/seed-events.ts'
import { readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { startDiskGuard, type DiskGuard } from './disk-guard.ts'
import { SAMPLED_EVENTS } from './storage.service.ts'

const MiB = 1024 ** 2
let ctx: TestContext
let seeded: SeededProject

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { project: 'Stored' })
})
afterAll(() => ctx.close())

const notify = (app: ReturnType<typeof createApp>, apiKey: string, errorClass: string) =>
  app.request('http://errata.test/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
    body: JSON.stringify({ payloadVersion: '4', events: [notifierEvent(errorClass, { metaData: { filler: { text: 'x'.repeat(2000) } } })] }),
  })

/** A guard of a 100 MiB file system with `free.bytes` free, looked at again by refresh(). */
async function fakeGuard(freeBytes: number): Promise<{ guard: DiskGuard; free: { bytes: number } }> {
  const free = { bytes: freeBytes }
  const statfs = async () => ({ bsize: 4096, blocks: (100 * MiB) / 4096, bavail: Math.floor(free.bytes / 4096) })
  const guard = await startDiskGuard({ dir: '/data', minFree: { bytes: 10 * MiB }, checkMs: 600_000, logger: pino({ level: 'silent' }), statfs })
  return { guard, free }
}

describe('a project\'s disk use', () => {
  it('counts its events, their payloads, its source maps and privacy exports, for admins', async () => {
    const { project, user } = seeded
    for (let i = 0; i < 3; i++) expect((await notify(ctx.app, project.api_key, `Stored${i}`)).status).toBe(200)
    await ctx.deps.ingestWriter.indexed()
    const upload = await ctx.request('/sourcemap', {
      method: 'POST',
      body: uploadForm({ apiKey: project.api_key, appVersion: '1.0.0', minifiedUrl: 'https://cdn.example.com/app.min.js' }, { sourceMap: readJsApp('dist/app.min.js.map') }),
    })
    expect(upload.status).toBe(200)
    await ctx.deps.database.db.insert(eventDataRequests).values({
      id: newId(),
      organizationId: seeded.organization.id,
      projectId: project.id,
      status: 'COMPLETED',
      reportType: 'json',
      filters: {},
      createdByEmail: user.email,
      createdByName: 'Admin',
      createdAt: new Date(),
      fileKey: 'export-1',
      fileBytes: 12_345,
    })

    const res = await ctx.request(`/api/projects/${project.id}/storage`, { token: user.token })
    expect(res.status).toBe(200)
    const storage = projectStorageSchema.parse(await res.json())
    expect(storage.events.count).toBe(3)
    expect(storage.sampled_events).toBe(3)
    expect(storage.events.bytes).toBeGreaterThan(0)
    // The payloads as stored: each holds its 2,000 characters of metadata (compressed by the database).
    expect(storage.payloads.count).toBe(3)
    expect(storage.payloads.bytes).toBeGreaterThan(0)
    const [map] = await ctx.deps.database.db.select({ stored: sourceMaps.storedBytes }).from(sourceMaps)
    expect(storage.source_maps).toEqual({ count: 1, bytes: map!.stored })
    expect(storage.privacy_exports).toEqual({ count: 1, bytes: 12_345 })
    expect(storage.total_bytes).toBe(storage.events.bytes + storage.payloads.bytes + storage.source_maps.bytes + storage.privacy_exports.bytes)
    expect(Date.parse(storage.measured_at)).toBeGreaterThan(Date.now() - 60_000)

    const member = await seedMember(ctx, seeded.organization.id, 'Storage Member')
    expect((await ctx.request(`/api/projects/${project.id}/storage`, { token: member.token })).status).toBe(403)
  })

  it(`measures the latest ${SAMPLED_EVENTS} events of a larger project and scales them to its count`, async () => {
    const { project, user } = await seedProject(ctx, { user: seeded.user, organization: 'Many', project: 'Many events' })
    const count = 3 * SAMPLED_EVENTS
    const list = Array.from({ length: count }, (_, i) => ({ error: `E${i % 20}`, at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), context: `/page/${i}` }))
    await seedEvents(ctx.deps.database, project.id, list)
    const started = performance.now()
    const storage = projectStorageSchema.parse(await (await ctx.request(`/api/projects/${project.id}/storage`, { token: user.token })).json())
    // What it costs here, for docs/operations.md (never asserted).
    console.log(`storage of ${count} events: ${Math.round(performance.now() - started)} ms on ${ctx.deps.database.engine}`)
    expect(storage.events.count).toBe(count)
    expect(storage.sampled_events).toBe(SAMPLED_EVENTS)
    // Seeded events have no payloads; every row is about the same size: the estimate is close to the sum.
    expect(storage.payloads).toEqual({ count: 0, bytes: 0 })
    const rows = await ctx.deps.database.db.select({ id: events.id }).from(events)
    expect(rows.length).toBeGreaterThanOrEqual(count)
    expect(storage.events.bytes).toBeGreaterThan(count * 50)
    expect(storage.events.bytes).toBeLessThan(count * 1000)
  })
})

describe('this server\'s disk use', () => {
  it('shows organization admins the database size and DATA_DIR\'s free space with the threshold', async () => {
    const { guard } = await fakeGuard(50 * MiB)
    const app = createApp({ ...ctx.deps, diskGuard: guard })
    try {
      const res = await app.request(`http://errata.test/api/organizations/${seeded.organization.id}/storage`, { headers: { Authorization: `token ${seeded.user.token}`, 'X-Version': '2' } })
      expect(res.status).toBe(200)
      const storage = serverStorageSchema.parse(await res.json())
      expect(storage.database.engine).toBe(ctx.deps.database.engine)
      expect(storage.database.bytes).toBeGreaterThan(0)
      expect(storage.disk).toMatchObject({ free_bytes: 50 * MiB, total_bytes: 100 * MiB, min_free_bytes: 10 * MiB, low: false })

      const ready = await app.request('http://errata.test/readyz')
      expect(ready.status).toBe(200)
      expect(await ready.json()).toMatchObject({
        status: 'ok',
        storage: { database_bytes: storage.database.bytes, data_dir_disk: { free_bytes: 50 * MiB, total_bytes: 100 * MiB, min_free_bytes: 10 * MiB, low: false } },
      })
    } finally {
      guard.close()
    }
  })
})

describe('low on disk space', () => {
  it('refuses events with 503 and Retry-After and uploads with 507, storing nothing, until space returns', async () => {
    const { project, user } = seeded
    const { guard, free } = await fakeGuard(5 * MiB)
    const app = createApp({ ...ctx.deps, diskGuard: guard })
    const eventsBefore = (await ctx.deps.database.db.select({ id: events.id }).from(events)).length
    const mapsBefore = (await ctx.deps.database.db.select({ id: sourceMaps.id }).from(sourceMaps)).length
    try {
      const refused = await notify(app, project.api_key, 'Refused')
      expect(refused.status).toBe(503)
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
      expect(await refused.json()).toEqual({ errors: [expect.stringContaining('low on disk space')] })
      const sessions = await app.request('http://errata.test/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': project.api_key }, body: '{}' })
      expect(sessions.status).toBe(503)
      expect(sessions.headers.get('Retry-After')).not.toBeNull()

      const form = () => uploadForm({ apiKey: project.api_key, appVersion: '3.0.0', minifiedUrl: 'https://cdn.example.com/refused.js' }, { sourceMap: readJsApp('dist/app.min.js.map') })
      for (const path of ['/sourcemap', '/react-native-source-map']) {
        const upload = await app.request(`http://errata.test${path}`, { method: 'POST', body: form() })
        expect(upload.status, path).toBe(507)
        expect(await upload.json()).toEqual({ errors: [expect.stringContaining('low on disk space')] })
      }
      const dashboardForm = form()
      dashboardForm.delete('apiKey')
      const dashboardUpload = await app.request(`http://errata.test/api/projects/${project.id}/source_maps`, {
        method: 'POST',
        headers: { Authorization: `token ${user.token}`, 'X-Version': '2' },
        body: dashboardForm,
      })
      expect(dashboardUpload.status).toBe(507)

      const ready = await app.request('http://errata.test/readyz')
      expect(ready.status).toBe(200)
      expect(await ready.json()).toMatchObject({ status: 'degraded', problem: expect.stringContaining('ERRATA_MIN_FREE_DISK'), storage: { data_dir_disk: { low: true } } })
      const server = serverStorageSchema.parse(
        await (await app.request(`http://errata.test/api/organizations/${seeded.organization.id}/storage`, { headers: { Authorization: `token ${user.token}`, 'X-Version': '2' } })).json(),
      )
      expect(server.disk?.low).toBe(true)

      await ctx.deps.ingestWriter.indexed()
      expect(await ctx.deps.database.db.select({ id: events.id }).from(events)).toHaveLength(eventsBefore)
      expect(await ctx.deps.database.db.select({ id: sourceMaps.id }).from(sourceMaps)).toHaveLength(mapsBefore)

      free.bytes = 50 * MiB
      await guard.refresh()
      expect((await notify(app, project.api_key, 'Accepted again')).status).toBe(200)
    } finally {
      guard.close()
    }
  })
})
