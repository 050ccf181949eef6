import { z } from 'zod/mini'
import { gunzipSync } from 'node:zlib'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filtersToParams, type Filters } from '../../contract/filters.ts'
import {
  eventDataDeletionSchema,
  eventDataRequestSchema,
  retrievalLineSchema,
  type EventDataDeletion,
  type EventDataRequest,
} from '../../contract/privacy.ts'
import { collaborators, eventDataDeletions, eventDataRequests } from '../db/schema.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

const DAY = 86_400_000
let now = new Date('2031-05-01T12:00:00.000Z')
let ctx: TestContext
let seeded: SeededProject
let secondProject: { id: string }
let member: TestUser
let outsider: TestUser
let restricted: TestUser
const waits: { at: string; status: string | undefined }[] = []

const alice = { id: 'alice-1', email: 'alice@example.com', name: 'Alice' }
const bob = { id: 'bob-2', email: 'bob@example.com', name: 'Bob' }
const ALICE: Filters = { 'user.id': [{ type: 'eq', value: alice.id }] }

beforeAll(async () => {
  ctx = await createTestContext(
    {},
    {
      clock: () => now,
      privacy: {
        batchSize: 2,
        // The real wait, recording what each job waited for and the deletion's state meanwhile.
        waitForIngestedBefore: async (at) => {
          const [row] = await ctx.deps.database.db.select({ status: eventDataDeletions.status }).from(eventDataDeletions).orderBy(sql`created_at DESC, id DESC`).limit(1)
          waits.push({ at: at.toISOString(), status: row?.status })
          await ctx.deps.ingestWriter.indexed()
        },
      },
    },
  )
  seeded = await seedProject(ctx, { user: 'Privacy Officer', organization: 'Privacy Org', project: 'Web' })
  const res = await ctx.request(`/api/organizations/${seeded.organization.id}/projects`, {
    method: 'POST',
    token: seeded.user.token,
    json: { name: 'Mobile', type: 'android' },
  })
  secondProject = (await res.json()) as { id: string }
  member = await ctx.createUser('Member')
  outsider = await ctx.createUser('Outsider')
  restricted = await ctx.createUser('Restricted')
  await ctx.deps.database.db.insert(collaborators).values([
    { organizationId: seeded.organization.id, userId: member.id, isAdmin: false },
    { organizationId: seeded.organization.id, userId: restricted.id, isAdmin: false, projectIds: [secondProject.id] },
  ])
  const at = (minutes: number) => new Date(now.getTime() - DAY + minutes * 60_000)
  const event = (cls: string, user: typeof alice, extra: Record<string, unknown> = {}) =>
    notifierEvent(cls, { user, device: { osName: 'android', id: `device-of-${user.id}` }, metaData: { order: { id: 42 } }, ...extra })
  await ingestAt(ctx, seeded.project.id, [
    { at: at(1), event: event('TypeError', alice) },
    { at: at(2), event: event('TypeError', bob) },
    { at: at(3), event: event('RangeError', alice, { context: 'GET /cart' }) },
  ])
  await ingestAt(ctx, secondProject.id, [
    { at: at(4), event: event('NullPointerException', alice) },
    { at: at(5), event: event('NullPointerException', bob) },
  ])
})
afterAll(() => ctx.close())

const org = () => `/api/organizations/${seeded.organization.id}`
const project = (id = seeded.project.id) => `/api/projects/${id}`
const query = (filters: Filters, extra: Record<string, string> = {}) =>
  filtersToParams(filters, new URLSearchParams(extra)).toString()

async function post(path: string, token = seeded.user.token, json?: unknown): Promise<Response> {
  return ctx.request(path, { method: 'POST', token, ...(json === undefined ? {} : { json }) })
}
async function getJson(path: string, token = seeded.user.token): Promise<unknown> {
  const res = await ctx.request(path, { token })
  expect(res.status, await res.clone().text()).toBe(200)
  return res.json()
}
const retrieval = async (path: string) => eventDataRequestSchema.parse(await getJson(path))
const deletion = async (path: string) => eventDataDeletionSchema.parse(await getJson(path))
async function errorsOf(res: Response): Promise<string[]> {
  return ((await res.json()) as { errors: string[] }).errors
}

async function download(request: EventDataRequest, acceptEncoding?: string): Promise<Response> {
  const path = new URL(request.url!).pathname
  return ctx.request(path, { token: seeded.user.token, headers: acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {} })
}
/** Runs jobs, moving the clock past each retry's backoff, until nothing is left to retry. */
async function drainWithRetries(): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await ctx.jobs.drain()
    now = new Date(now.getTime() + 1000)
  }
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => retrievalLineSchema.parse(JSON.parse(line)))

describe('event data requests (retrieval)', () => {
  let created: EventDataRequest

  it('POST with the filters in the query string and no body answers 201 PREPARING', async () => {
    const res = await post(`${org()}/event_data_requests?${query(ALICE, { report_type: 'gdpr' })}`)
    expect(res.status).toBe(201)
    created = eventDataRequestSchema.parse(await res.json())
    expect(created).toMatchObject({
      status: 'PREPARING',
      total: null,
      completed_at: null,
      expires_at: null,
      report_type: 'gdpr',
      filters: ALICE,
      project_id: null,
      created_at: now.toISOString(),
      created_by: { id: seeded.user.id, email: seeded.user.email, name: 'Privacy Officer' },
    })
    expect(created.url).toBeUndefined()
    expect(await retrieval(`${org()}/event_data_requests/${created.id}`)).toMatchObject({ status: 'PREPARING' })
  })

  it('completes asynchronously: total, completed_at, expires_at 7 days later, and a url', async () => {
    await ctx.jobs.drain()
    const done = await retrieval(`${org()}/event_data_requests/${created.id}`)
    expect(done).toMatchObject({
      status: 'COMPLETED',
      total: 3,
      completed_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 7 * DAY).toISOString(),
      url: `http://errata.test/api/organizations/${seeded.organization.id}/event_data_requests/${created.id}/download`,
      attempts: 1,
      last_error: null,
    })
    expect(done.file_bytes).toBeGreaterThan(0)
    // It waited for events accepted before it was made.
    expect(waits.at(-1)?.at).toBe(created.created_at)
    created = done
  })

  it('serves the file as JSON lines, one per matching event, with user, device and metadata', async () => {
    const plain = await download(created)
    expect(plain.status).toBe(200)
    expect(plain.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8')
    expect(plain.headers.get('Content-Disposition')).toBe(`attachment; filename="errata-event-data-${created.id}.jsonl"`)
    const rows = lines(await plain.text())
    expect(rows).toHaveLength(3)
    expect(rows.map((r) => r.user)).toEqual([alice, alice, alice].map((u) => expect.objectContaining(u)))
    expect(rows.map((r) => r.project_name).sort()).toEqual(['Mobile', 'Web', 'Web'])
    expect(rows[0]).toMatchObject({ device: expect.objectContaining({ osName: 'android', id: 'device-of-alice-1' }), meta_data: { order: { id: 42 } } })
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(3)
    // gzip as stored, for clients that take it.
    const zipped = await download(created, 'gzip, deflate')
    expect(zipped.headers.get('Content-Encoding')).toBe('gzip')
    expect(lines(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8'))).toEqual(rows)
  })

  it('accepts the filters and report type as a JSON body, and lists requests newest first', async () => {
    now = new Date(now.getTime() + 1000)
    const res = await post(`${org()}/event_data_requests`, seeded.user.token, { filters: { 'user.email': [{ type: 'eq', value: 'BOB@' }] }, report_type: 'gdpr' })
    expect(res.status).toBe(201)
    const bobs = eventDataRequestSchema.parse(await res.json())
    await ctx.jobs.drain()
    expect(await retrieval(`${org()}/event_data_requests/${bobs.id}`)).toMatchObject({ status: 'COMPLETED', total: 2 })
    const list = await ctx.request(`${org()}/event_data_requests?per_page=1`, { token: seeded.user.token })
    expect(list.headers.get('X-Total-Count')).toBe('2')
    expect((z.array(eventDataRequestSchema).parse(await list.json())).map((r) => r.id)).toEqual([bobs.id])
    const next = new URL(list.headers.get('Link')!.replace(/^<|>; rel="next"$/g, ''))
    const second = z.array(eventDataRequestSchema).parse(await getJson(`${next.pathname}${next.search}`))
    expect(second.map((r) => r.id)).toEqual([created.id])
  })

  it('the project-scoped variant selects that project only, and is listed there and in the organization', async () => {
    const res = await post(`${project(secondProject.id)}/event_data_requests?${query(ALICE)}`)
    expect(res.status).toBe(201)
    const scoped = eventDataRequestSchema.parse(await res.json())
    expect(scoped).toMatchObject({ project_id: secondProject.id, report_type: 'gdpr' })
    await ctx.jobs.drain()
    const done = await retrieval(`${project(secondProject.id)}/event_data_requests/${scoped.id}`)
    expect(done.total).toBe(1)
    expect(lines(await (await download(done)).text()).map((r) => r.project_id)).toEqual([secondProject.id])
    // Not a request of the other project.
    expect((await ctx.request(`${project()}/event_data_requests/${scoped.id}`, { token: seeded.user.token })).status).toBe(404)
    const inProject = z.array(eventDataRequestSchema).parse(await getJson(`${project(secondProject.id)}/event_data_requests`))
    expect(inProject.map((r) => r.id)).toEqual([scoped.id])
  })

  it('after expires_at the download answers 410, the request offers no url, and the file is removed', async () => {
    const before = now
    const [stored] = await ctx.deps.database.db.select({ key: eventDataRequests.fileKey }).from(eventDataRequests).where(eq(eventDataRequests.id, created.id))
    expect(await ctx.deps.privacy!.files.open(created.id, stored!.key!)).not.toBeNull()
    now = new Date(created.expires_at!)
    // Expired, even before the sweep removes the file: neither the request nor the list names its download.
    expect((await retrieval(`${org()}/event_data_requests/${created.id}`)).url).toBeUndefined()
    const listed = z.array(eventDataRequestSchema).parse(await getJson(`${org()}/event_data_requests`))
    expect(listed.find((r) => r.id === created.id)).toMatchObject({ status: 'COMPLETED', expires_at: created.expires_at })
    expect(listed.find((r) => r.id === created.id)!.url).toBeUndefined()
    const expired = await download(created)
    expect(expired.status).toBe(410)
    expect(await errorsOf(expired)).toEqual([
      `the file of event data request ${created.id} expired at ${created.expires_at}; make a new request`,
    ])
    await ctx.jobs.drain()
    const after = await retrieval(`${org()}/event_data_requests/${created.id}`)
    expect(after).toMatchObject({ status: 'COMPLETED', file_removed: 'expired' })
    expect(after.url).toBeUndefined()
    expect(await ctx.deps.privacy!.files.open(created.id, stored!.key!)).toBeNull()
    // Gone from storage, not only refused: back before the expiry it is still gone.
    now = before
    expect((await download(created)).status).toBe(410)
    now = new Date(created.expires_at!)
  })

  it('records attempts and the last error of a failed run, and retries until it works', async () => {
    let failures = 1
    const original = ctx.deps.privacy!.waitForIngestedBefore
    ctx.deps.privacy!.waitForIngestedBefore = async (at, signal) => {
      if (failures-- > 0) throw new Error('the ingestion backlog could not be read')
      return original(at, signal)
    }
    try {
      const res = await post(`${org()}/event_data_requests?${query(ALICE)}`)
      const made = eventDataRequestSchema.parse(await res.json())
      await drainWithRetries()
      expect(await retrieval(`${org()}/event_data_requests/${made.id}`)).toMatchObject({
        status: 'COMPLETED',
        attempts: 2,
        last_error: 'the ingestion backlog could not be read',
      })
      failures = 100
      const doomed = eventDataRequestSchema.parse(await (await post(`${org()}/event_data_requests?${query(ALICE)}`)).json())
      await drainWithRetries()
      expect(await retrieval(`${org()}/event_data_requests/${doomed.id}`)).toMatchObject({
        status: 'FAILED',
        attempts: 10,
        failure: 'the ingestion backlog could not be read',
      })
      const failedDownload = await download({ ...doomed, url: `http://errata.test${org()}/event_data_requests/${doomed.id}/download` })
      expect(failedDownload.status).toBe(409)
    } finally {
      ctx.deps.privacy!.waitForIngestedBefore = original
    }
  })
})

describe('event data deletions', () => {
  it('PREPARING → AWAITING_CONFIRMATION (total, completed_at) → confirm → ACCEPTED → COMPLETED', async () => {
    now = new Date(now.getTime() + 1000)
    const res = await post(`${project()}/event_data_deletions?${query({ 'event.class': [{ type: 'eq', value: 'RangeError' }] }, { skip_confirmation: 'false' })}`)
    expect(res.status).toBe(201)
    const made = eventDataDeletionSchema.parse(await res.json())
    expect(made).toMatchObject({ status: 'PREPARING', total: null, completed_at: null, skip_confirmation: false, project_id: seeded.project.id })

    await ctx.jobs.drain()
    const counted = await deletion(`${project()}/event_data_deletions/${made.id}`)
    expect(counted).toMatchObject({ status: 'AWAITING_CONFIRMATION', total: 1, completed_at: now.toISOString(), deleted_events: 0 })
    // Counting deletes nothing.
    expect((await getJson(`${project()}/events?per_page=100`) as unknown[]).length).toBe(3)

    now = new Date(now.getTime() + 1000)
    const confirm = await post(`${project()}/event_data_deletions/${made.id}/confirm`)
    expect(confirm.status).toBe(200)
    expect(eventDataDeletionSchema.parse(await confirm.json())).toMatchObject({
      status: 'ACCEPTED',
      total: 1,
      completed_at: null,
      confirmed_by: { id: seeded.user.id, email: seeded.user.email, name: 'Privacy Officer' },
      confirmed_at: now.toISOString(),
    })
    await ctx.jobs.drain()
    const done = await deletion(`${org()}/event_data_deletions/${made.id}`)
    expect(done).toMatchObject({ status: 'COMPLETED', total: 1, deleted_events: 1, completed_at: now.toISOString() })
    const classes = (await getJson(`${project()}/events?per_page=100`) as { exceptions: { class: string }[] }[]).map((e) => e.exceptions[0]!.class)
    expect(classes.sort()).toEqual(['TypeError', 'TypeError'])
  })

  it('confirming a deletion that is not awaiting confirmation answers 409 saying why', async () => {
    const made = eventDataDeletionSchema.parse(await (await post(`${org()}/event_data_deletions?${query({ 'user.id': [{ type: 'eq', value: 'nobody' }] })}`)).json())
    const early = await post(`${org()}/event_data_deletions/${made.id}/confirm`)
    expect(early.status).toBe(409)
    expect(await errorsOf(early)).toEqual([
      `deletion ${made.id} is PREPARING, not AWAITING_CONFIRMATION: its events are still being counted; confirm it once it is AWAITING_CONFIRMATION`,
    ])
    await ctx.jobs.drain()
    expect((await post(`${org()}/event_data_deletions/${made.id}/confirm`)).status).toBe(200)
    await ctx.jobs.drain()
    const twice = await post(`${org()}/event_data_deletions/${made.id}/confirm`)
    expect(twice.status).toBe(409)
    expect(await errorsOf(twice)).toEqual([`deletion ${made.id} is COMPLETED, not AWAITING_CONFIRMATION: it was confirmed and has completed`])
  })

  it('with skip_confirmation=true goes from counting to deleting: PREPARING → ACCEPTED → COMPLETED', async () => {
    waits.length = 0
    const made = eventDataDeletionSchema.parse(
      await (await post(`${project(secondProject.id)}/event_data_deletions?${query({ 'user.id': [{ type: 'eq', value: bob.id }] }, { skip_confirmation: 'true' })}`)).json(),
    )
    expect(made).toMatchObject({ status: 'PREPARING', skip_confirmation: true })
    await ctx.jobs.drain()
    // The count waited while PREPARING, the deletion while ACCEPTED (total known, not complete).
    expect(waits.map((w) => w.status)).toEqual(['PREPARING', 'ACCEPTED'])
    expect(await deletion(`${org()}/event_data_deletions/${made.id}`)).toMatchObject({ status: 'COMPLETED', total: 1, deleted_events: 1, confirmed_by: null })
  })

  it('lists deletions newest first, with who made them', async () => {
    const list = z.array(eventDataDeletionSchema).parse(await getJson(`${org()}/event_data_deletions`)) as EventDataDeletion[]
    expect(list).toHaveLength(3)
    expect(list.map((d) => d.created_at)).toEqual([...list.map((d) => d.created_at)].sort().reverse())
    expect(list.every((d) => d.created_by.email === seeded.user.email)).toBe(true)
  })
})

describe('what a request must say', () => {
  const cases: [string, string, unknown, string[]][] = [
    ['no filters', '', undefined, [
      'filters: give at least one filter (such as filters[user.id][][type]=eq&filters[user.id][][value]=…), or all_events=true to select every event of the organization',
    ]],
    ['an empty body', '', {}, [
      'filters: give at least one filter (such as filters[user.id][][type]=eq&filters[user.id][][value]=…), or all_events=true to select every event of the organization',
    ]],
    ['all_events with filters', `all_events=true&${query(ALICE)}`, undefined, ['all_events: cannot be combined with filters; give one or the other']],
    ['an unknown field', 'filters[user.idd][][type]=eq&filters[user.idd][][value]=x', undefined, [
      'filters[user.idd]: unknown filter field "user.idd" (GET /projects/{id}/event_fields lists them)',
    ]],
    ['a bad body filter', '', { filters: { 'error.status': [{ type: 'eq', value: 'closed' }] } }, [
      'filters[error.status]: value "closed" must be one of open, fixed, snoozed, ignored',
    ]],
    ['filters in both places', query(ALICE), { filters: ALICE }, ['filters: give them in the query string or in the body, not both']],
    ['an unknown body key', '', { filter: ALICE }, ['Unrecognized key: "filter"']],
    ['contradictory times', query({ 'event.since': [{ type: 'eq', value: '2030-01-02' }], 'event.before': [{ type: 'eq', value: '2030-01-01' }] }), undefined, [
      'filters[event.since]: must be earlier than filters[event.before]',
    ]],
  ]
  for (const [name, search, body, messages] of cases) {
    it(`refuses ${name} with a 400 naming the field, for retrievals and deletions`, async () => {
      for (const kind of ['event_data_requests', 'event_data_deletions']) {
        const res = await post(`${org()}/${kind}?${search}`, seeded.user.token, body)
        expect(res.status, kind).toBe(400)
        expect(await errorsOf(res)).toEqual(messages)
      }
    })
  }

  it('refuses report types other than gdpr and booleans that are not true or false', async () => {
    const ccpa = await post(`${org()}/event_data_requests?${query(ALICE, { report_type: 'ccpa' })}`)
    expect(ccpa.status).toBe(400)
    expect(await errorsOf(ccpa)).toEqual(['report_type: must be gdpr (it also serves CCPA requests)'])
    const maybe = await post(`${org()}/event_data_deletions?${query(ALICE, { skip_confirmation: 'yes' })}`)
    expect(await errorsOf(maybe)).toEqual(['skip_confirmation: must be true or false'])
  })

  it('takes every event of the scope only when all_events=true says so', async () => {
    const res = await post(`${project()}/event_data_deletions?all_events=true`)
    expect(res.status).toBe(201)
    const made = eventDataDeletionSchema.parse(await res.json())
    expect(made).toMatchObject({ all_events: true, filters: {} })
    await ctx.jobs.drain()
    expect(await deletion(`${project()}/event_data_deletions/${made.id}`)).toMatchObject({ status: 'AWAITING_CONFIRMATION', total: 2 })
  })
})

describe('who may', () => {
  it('only organization admins create, read, confirm and download: members get 403', async () => {
    const made = eventDataDeletionSchema.parse(await (await post(`${org()}/event_data_deletions?${query(ALICE)}`)).json())
    const requests = z.array(eventDataRequestSchema).parse(await getJson(`${org()}/event_data_requests`))
    // Refused before anything is looked up: any request will do.
    const completed = requests[0]!
    const attempts: [string, string][] = [
      ['POST', `${org()}/event_data_requests?${query(ALICE)}`],
      ['POST', `${org()}/event_data_deletions?${query(ALICE)}`],
      ['GET', `${org()}/event_data_requests`],
      ['GET', `${org()}/event_data_deletions/${made.id}`],
      ['POST', `${org()}/event_data_deletions/${made.id}/confirm`],
      ['GET', `${org()}/event_data_requests/${completed.id}/download`],
      ['GET', `${org()}/event_data_preview?${query(ALICE)}`],
      ['POST', `${project()}/event_data_deletions?${query(ALICE)}`],
      ['GET', `${project()}/event_data_requests`],
    ]
    for (const [method, path] of attempts) {
      const res = await ctx.request(path, { method, token: member.token })
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(await errorsOf(res)).toEqual(['only organization admins may do this'])
    }
  })

  it('outsiders and members who cannot see the project get 404, as if nothing existed', async () => {
    const made = eventDataDeletionSchema.parse(await (await post(`${org()}/event_data_deletions?${query(ALICE)}`)).json())
    for (const [token, path] of [
      [outsider.token, `${org()}/event_data_deletions/${made.id}`],
      [outsider.token, `${org()}/event_data_requests?${query(ALICE)}`],
      [outsider.token, `${project()}/event_data_deletions`],
      [restricted.token, `${project()}/event_data_deletions`],
    ] as const) {
      expect((await ctx.request(path, { token })).status, path).toBe(404)
    }
    expect((await post(`${org()}/event_data_deletions/${made.id}/confirm`, outsider.token)).status).toBe(404)
    // Another organization's admin cannot reach this one's requests through their own.
    const other = await seedProject(ctx, { user: 'Other Admin' })
    expect((await ctx.request(`/api/organizations/${other.organization.id}/event_data_deletions/${made.id}`, { token: other.user.token })).status).toBe(404)
    expect((await post(`/api/organizations/${other.organization.id}/event_data_deletions/${made.id}/confirm`, other.user.token)).status).toBe(404)
  })
})

describe('GET …/event_data_preview', () => {
  it('counts the matching events and shows the newest few', async () => {
    const preview = (await getJson(`${org()}/event_data_preview?${query(ALICE)}`)) as { total: number; events: { user: { id: string } }[] }
    expect(preview.total).toBe(2)
    expect(preview.events.map((e) => e.user.id)).toEqual([alice.id, alice.id])
    const empty = await ctx.request(`${org()}/event_data_preview`, { token: seeded.user.token })
    expect(empty.status).toBe(400)
  })
})
