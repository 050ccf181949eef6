// The privacy page's preview: whose events a selection matches. user.email and user.name match a
// substring (the spec's filter semantics), so one selection can catch several people; the preview
// counts and lists them (a user id, else an email, else a name), merges a person seen in several
// projects, and says when there were more than it counted. user.id matches exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filtersToParams, type Filters } from '../../contract/filters.ts'
import { PRIVACY_PEOPLE_COUNTED, PRIVACY_PEOPLE_SHOWN, privacyPreviewSchema, type PrivacyPreview } from '../../contract/privacy.ts'
import { acceptedPayload, ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

let ctx: TestContext
let seeded: SeededProject
let otherProjectId: string
let crowdProjectId: string

const ann = { id: 'u-ann', email: 'ann@example.com', name: 'Ann Lee' }
const joanna = { id: 'u-joanna', email: 'joanna@example.com', name: 'Joanna Park' }
// No user id: a person by their email.
const annaByEmail = { email: 'anna@example.org', name: 'Anna' }

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Preview Officer', organization: 'Preview Org', project: 'Web' })
  const newProject = async (name: string) =>
    ((await (await ctx.request(`/api/organizations/${seeded.organization.id}/projects`, { method: 'POST', token: seeded.user.token, json: { name } })).json()) as { id: string }).id
  otherProjectId = await newProject('Mobile')
  crowdProjectId = await newProject('Crowd')
  const at = (minutes: number) => new Date(Date.now() - 3_600_000 + minutes * 60_000)
  const event = (user: Record<string, string> | undefined) => notifierEvent('TypeError', user ? { user } : {})
  await ingestAt(ctx, seeded.project.id, [
    { at: at(1), event: event(ann) },
    { at: at(2), event: event(ann) },
    { at: at(3), event: event(ann) },
    { at: at(4), event: event(joanna) },
    { at: at(5), event: event(joanna) },
    { at: at(6), event: event(annaByEmail) },
    { at: at(7), event: event(undefined) },
  ])
  await ingestAt(ctx, otherProjectId, [{ at: at(8), event: event(ann) }])
  // One more person than the preview counts, in one request.
  await ctx.deps.ingestWriter.write(
    acceptedPayload(crowdProjectId, {
      payloadVersion: '5',
      events: Array.from({ length: PRIVACY_PEOPLE_COUNTED + 1 }, (_, i) => event({ id: `crowd-${i}`, email: `crowd-${i}@example.com` })),
    }),
  )
  await ctx.deps.ingestWriter.indexed()
}, 120_000)
afterAll(() => ctx?.close())

async function preview(scopePath: string, filters: Filters | 'all'): Promise<PrivacyPreview> {
  const query = filters === 'all' ? 'all_events=true' : filtersToParams(filters).toString()
  const res = await ctx.request(`${scopePath}/event_data_preview?${query}`, { token: seeded.user.token })
  expect(res.status).toBe(200)
  return privacyPreviewSchema.parse(await res.json())
}
const org = () => `/api/organizations/${seeded.organization.id}`
const web = () => `/api/projects/${seeded.project.id}`
const eq = (value: string) => [{ type: 'eq' as const, value }]

describe('the people a selection matches', () => {
  it('an email substring catches several people: counted and listed, most events first, one person across projects', async () => {
    const result = await preview(org(), { 'user.email': eq('ann') })
    expect(result.total).toBe(7)
    expect(result.people).toEqual({
      total: 3,
      capped: false,
      items: [
        { user: ann, events: 4 },
        { user: joanna, events: 2 },
        { user: { id: null, ...annaByEmail }, events: 1 },
      ],
      events_without_user: 0,
    })
    // In one project, the same three with that project's events.
    expect((await preview(web(), { 'user.email': eq('ann') })).people.items.map((p) => [p.user.email, p.events])).toEqual([
      ['ann@example.com', 3],
      ['joanna@example.com', 2],
      ['anna@example.org', 1],
    ])
  })

  it('a name substring matches case-insensitively; user.id matches one person exactly', async () => {
    expect((await preview(web(), { 'user.name': eq('ann') })).people.items.map((p) => p.user.name)).toEqual(['Ann Lee', 'Joanna Park', 'Anna'])
    const exact = await preview(org(), { 'user.id': eq('u-ann') })
    expect(exact.total).toBe(4)
    expect(exact.people).toEqual({ total: 1, capped: false, items: [{ user: ann, events: 4 }], events_without_user: 0 })
    // An id is not a substring: part of one matches nobody.
    expect((await preview(org(), { 'user.id': eq('u-an') })).people).toEqual({ total: 0, capped: false, items: [], events_without_user: 0 })
  })

  it('an exact email is the whole address, case ignored: one person, not every address containing it', async () => {
    const exact = [{ type: 'exact' as const, value: 'ANNA@example.org' }]
    const result = await preview(org(), { 'user.email': exact })
    expect(result.total).toBe(1)
    expect(result.people.items).toEqual([{ user: { id: null, ...annaByEmail }, events: 1 }])
    // A part of an address is not the address.
    expect((await preview(org(), { 'user.email': [{ type: 'exact', value: 'ann' }] })).total).toBe(0)
    // An exact name, likewise.
    expect((await preview(web(), { 'user.name': [{ type: 'exact', value: 'ann lee' }] })).people.items.map((p) => p.user.name)).toEqual(['Ann Lee'])
  })

  it('counts the events that carry no user details apart', async () => {
    const result = await preview(web(), 'all')
    expect(result.total).toBe(7)
    expect(result.people.total).toBe(3)
    expect(result.people.events_without_user).toBe(1)
  })

  it('lists at most the first few people and says when there were more than it counted', async () => {
    const result = await preview(`/api/projects/${crowdProjectId}`, { 'user.email': eq('crowd-') })
    expect(result.total).toBe(PRIVACY_PEOPLE_COUNTED + 1)
    expect(result.people.capped).toBe(true)
    expect(result.people.total).toBeGreaterThan(PRIVACY_PEOPLE_COUNTED)
    expect(result.people.items).toHaveLength(PRIVACY_PEOPLE_SHOWN)
    // A narrower selection in the same project is counted in full.
    expect((await preview(`/api/projects/${crowdProjectId}`, { 'user.email': eq('crowd-99') })).people).toMatchObject({ total: 11, capped: false })
  })
})
