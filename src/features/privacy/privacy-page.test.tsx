import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { EventDataDeletion, EventDataRequest } from '../../../contract/privacy.ts'
import { PRIVACY_POLL_MS } from '../../api/privacy.ts'
import { organization, project, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = signedInUser
const ALICE = { 'user.id': [{ type: 'eq' as const, value: 'alice' }] }
const actor = { id: 'u1', email: 'ada@example.com', name: 'Ada' }
const created = new Date(Date.now() - 60_000).toISOString()

const retrieval = (overrides: Partial<EventDataRequest> = {}): EventDataRequest => ({
  id: 'r1',
  status: 'PREPARING',
  total: null,
  filters: ALICE,
  report_type: 'gdpr',
  created_at: created,
  completed_at: null,
  expires_at: null,
  organization_id: 'org1',
  project_id: null,
  all_events: false,
  created_by: actor,
  file_bytes: null,
  file_removed: null,
  attempts: 1,
  last_error: null,
  failure: null,
  ...overrides,
})

const deletion = (overrides: Partial<EventDataDeletion> = {}): EventDataDeletion => ({
  id: 'd1',
  status: 'PREPARING',
  total: null,
  filters: ALICE,
  created_at: created,
  completed_at: null,
  organization_id: 'org1',
  project_id: null,
  all_events: false,
  skip_confirmation: false,
  deleted_events: 0,
  created_by: actor,
  confirmed_by: null,
  confirmed_at: null,
  attempts: 1,
  last_error: null,
  failure: null,
  ...overrides,
})

const ALICE_USER = { id: 'alice', email: 'alice@example.com', name: 'Alice' }
const JOANNA_USER = { id: 'joanna-7', email: 'joanna@example.com', name: 'Joanna' }
const people = (items: Array<{ user: typeof ALICE_USER | { id: null; email: string; name: null }; events: number }>) => ({
  total: items.length,
  capped: false,
  items,
  events_without_user: 0,
})

/** alice by id or by `alice@`; `ann` (a substring) also catches joanna@… and one email without a user id. */
const preview = (request: MockRequest) => {
  const id = request.url.searchParams.get('filters[user.id][][value]')
  const email = request.url.searchParams.get('filters[user.email][][value]')
  const event = (user: typeof ALICE_USER) => ({ id: user.id === 'alice' ? 'ev1' : `ev-${user.id}`, project_id: 'p1', error_id: 'e1', received_at: created, error_class: 'TypeError', message: 'boom', context: null, user })
  if (email === 'ann') {
    return json({
      total: 6,
      events: [event(ALICE_USER), event(JOANNA_USER)],
      people: people([
        { user: ALICE_USER, events: 3 },
        { user: JOANNA_USER, events: 2 },
        { user: { id: null, email: 'anne@example.org', name: null }, events: 1 },
      ]),
    })
  }
  if (id === 'joanna-7') return json({ total: 2, events: [event(JOANNA_USER)], people: people([{ user: JOANNA_USER, events: 2 }]) })
  const matches = id === 'alice' || email === 'alice@'
  return json({
    total: matches ? 3 : 0,
    events: matches ? [event(ALICE_USER)] : [],
    people: people(matches ? [{ user: ALICE_USER, events: 3 }] : []),
  })
}

/** The API as the server answers it, with the requests' states moved along by `advance`. */
function api({ admin = true } = {}) {
  const state = { retrievals: [] as EventDataRequest[], deletions: [] as EventDataDeletion[] }
  const mock = mockApi({
    'GET /api/user': me,
    'GET /api/user/invitations': [],
    'GET /api/user/organizations': [organization()],
    'GET /api/organizations/org1': organization(),
    'GET /api/organizations/org1/projects': [project()],
    'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
    'GET /api/organizations/org1/event_data_preview': preview,
    'GET /api/organizations/org1/event_data_requests': () => json(state.retrievals, { headers: { 'X-Total-Count': String(state.retrievals.length) } }),
    'GET /api/organizations/org1/event_data_deletions': () => json(state.deletions, { headers: { 'X-Total-Count': String(state.deletions.length) } }),
    'POST /api/organizations/org1/event_data_requests': () => {
      state.retrievals = [retrieval()]
      return json(state.retrievals[0], { status: 201 })
    },
    'POST /api/organizations/org1/event_data_deletions': () => {
      state.deletions = [deletion()]
      return json(state.deletions[0], { status: 201 })
    },
    'POST /api/organizations/org1/event_data_deletions/d1/confirm': () => {
      state.deletions = [deletion({ status: 'ACCEPTED', total: 3, confirmed_by: actor, confirmed_at: new Date().toISOString() })]
      return json(state.deletions[0])
    },
    'GET /api/organizations/org1/event_data_requests/r1/download': () =>
      new Response('{"event_id":"ev1"}\n', { headers: { 'Content-Type': 'application/x-ndjson' } }),
  })
  return { ...mock, state }
}

const countRequests = (requests: MockRequest[], method: string, path: string) =>
  requests.filter((r) => r.method === method && r.url.pathname === path).length

configure({ asyncUtilTimeout: 6_000 })
afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('the privacy page', { timeout: 20_000 }, () => {
  it('counts the prefilled user’s events, exports them and downloads the file once ready', async () => {
    // Polling runs on intervals: faked (with time still flowing), so the end can tell that none is left.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'], shouldAdvanceTime: true })
    const { requests, state } = api()
    const createObjectURL = vi.fn(() => 'blob:errata-test')
    vi.stubGlobal(
      'URL',
      class extends URL {
        static override createObjectURL = createObjectURL
        static override revokeObjectURL = vi.fn()
      },
    )
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    renderApp('/organizations/org1/privacy?f=user.id:eq:alice')

    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Inc.: privacy requests' })).toBeInTheDocument()
    expect(screen.getByLabelText(/User id/)).toHaveValue('alice')
    expect(await screen.findByText('3 matching events')).toBeInTheDocument()
    expect(within(screen.getByRole('list', { name: 'Newest matching events' })).getByRole('link', { name: /TypeError/ })).toHaveAttribute(
      'href',
      '/projects/p1/errors/e1/events/ev1',
    )

    await userEvent.click(screen.getByRole('button', { name: 'Export their data' }))
    const post = requests.find((r) => r.method === 'POST' && r.url.pathname.endsWith('/event_data_requests'))
    expect(post?.body).toEqual({ filters: ALICE, report_type: 'gdpr' })
    const row = await screen.findByRole('article', { name: 'Export: User id is alice' })
    expect(within(row).getByText('Preparing')).toBeInTheDocument()

    // The list polls while a request is under way.
    state.retrievals = [
      retrieval({
        status: 'COMPLETED',
        total: 3,
        completed_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        url: 'http://errata.example/api/organizations/org1/event_data_requests/r1/download',
        file_bytes: 120,
      }),
    ]
    expect(await within(row).findByTitle('COMPLETED')).toHaveTextContent('Completed')
    expect(within(row).getByText('3 events')).toBeInTheDocument()
    // Counted from its completion, whatever the page's clock last read.
    expect(within(row).getByText('kept 7 more days')).toBeInTheDocument()
    const listsBefore = countRequests(requests, 'GET', '/api/organizations/org1/event_data_requests')
    await userEvent.click(screen.getByRole('button', { name: 'Download file' }))
    await waitFor(() => expect(click).toHaveBeenCalled())
    const download = requests.find((r) => r.url.pathname.endsWith('/r1/download'))
    // Fetched on this origin with the session's token.
    expect(download?.headers.get('Authorization')).toBe('token test-token')
    expect(createObjectURL).toHaveBeenCalled()
    // Every request is final: polling has stopped.
    await vi.advanceTimersByTimeAsync(PRIVACY_POLL_MS * 3)
    expect(countRequests(requests, 'GET', '/api/organizations/org1/event_data_requests')).toBe(listsBefore)
  })

  it('makes a deletion, shows its count, confirms it once the count is typed and watches it complete', async () => {
    const { requests, state } = api()
    renderApp('/organizations/org1/privacy')
    expect(await screen.findByText('Enter a user id, an email or a name to see how many events match.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Delete their events…' })).toBeDisabled()

    await userEvent.type(screen.getByLabelText(/User email/), 'alice@')
    expect(await screen.findByText('3 matching events')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Delete their events…' }))
    expect(requests.find((r) => r.method === 'POST' && r.url.pathname.endsWith('/event_data_deletions'))?.body).toEqual({
      filters: { 'user.email': [{ type: 'eq', value: 'alice@' }] },
      skip_confirmation: false,
    })
    state.deletions = [deletion({ status: 'AWAITING_CONFIRMATION', total: 3, completed_at: new Date().toISOString() })]
    const row = await screen.findByRole('article', { name: 'Deletion: User id is alice' })
    expect(await within(row).findByText('Awaiting confirmation')).toBeInTheDocument()
    expect(within(row).getByText('3 events to delete')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Confirm deletion…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete 3 events for good?' })
    const confirm = within(dialog).getByRole('button', { name: 'Delete events' })
    expect(confirm).toBeDisabled()
    await userEvent.type(within(dialog).getByLabelText(/Type 3 to confirm/), '2')
    expect(confirm).toBeDisabled()
    await userEvent.clear(within(dialog).getByLabelText(/Type 3 to confirm/))
    await userEvent.type(within(dialog).getByLabelText(/Type 3 to confirm/), '3')
    await userEvent.click(confirm)
    expect(countRequests(requests, 'POST', '/api/organizations/org1/event_data_deletions/d1/confirm')).toBe(1)
    expect(await within(row).findByText('Deleting')).toBeInTheDocument()
    expect(within(row).getByText(/Confirmed by/)).toBeInTheDocument()

    state.deletions = [deletion({ status: 'COMPLETED', total: 3, deleted_events: 3, completed_at: new Date().toISOString(), confirmed_by: actor, confirmed_at: created })]
    expect(await within(row).findByTitle('COMPLETED')).toHaveTextContent('Completed')
    expect(within(row).getByText('3 events deleted')).toBeInTheDocument()
  })

  it('shows how many people a substring matches, narrows to one of them exactly, and says so when a deletion matches several', async () => {
    const { requests, state } = api()
    const { router } = renderApp('/organizations/org1/privacy?f=user.email:eq:ann')
    const matched = await screen.findByRole('region', { name: 'Matching people' })
    expect(within(matched).getByText('3 different people')).toBeInTheDocument()
    const listed = within(within(matched).getByRole('list', { name: 'People' })).getAllByRole('listitem')
    expect(listed.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^alice@example\.com · Alice · user id alice3 eventsOnly this person/),
      expect.stringMatching(/^joanna@example\.com · Joanna · user id joanna-72 eventsOnly this person/),
      'anne@example.org1 eventOnly this person',
    ])

    // A deletion of the substring: its confirmation names the people it takes.
    await userEvent.click(screen.getByRole('button', { name: 'Delete their events…' }))
    state.deletions = [deletion({ status: 'AWAITING_CONFIRMATION', total: 6, filters: { 'user.email': [{ type: 'eq', value: 'ann' }] }, completed_at: created })]
    await userEvent.click(await screen.findByRole('button', { name: 'Confirm deletion…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete 6 events for good?' })
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'This matches 3 different people: alice@example.com, joanna@example.com and anne@example.org.',
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))

    // Only one of them, by user id: the exact filter goes to the URL and the email filter is gone.
    await userEvent.click(within(matched).getByRole('button', { name: 'Only this person: joanna@example.com' }))
    await waitFor(() => expect(router.state.location.search).toEqual({ f: 'user.id:eq:joanna-7' }))
    expect(await screen.findByText('2 matching events')).toBeInTheDocument()
    expect(within(screen.getByRole('region', { name: 'Matching people' })).getByText('1 person')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Only this person/ })).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Export their data' }))
    expect(requests.filter((r) => r.method === 'POST' && r.url.pathname.endsWith('/event_data_requests')).map((r) => r.body)).toEqual([
      { filters: { 'user.id': [{ type: 'eq', value: 'joanna-7' }] }, report_type: 'gdpr' },
    ])
  })

  it('narrows to a person without a user id by their whole email address, and matches an email exactly on request', async () => {
    const { requests } = api()
    const { router } = renderApp('/organizations/org1/privacy?f=user.email:eq:ann')
    const matched = await screen.findByRole('region', { name: 'Matching people' })
    await userEvent.click(within(matched).getByRole('button', { name: 'Only this person: anne@example.org' }))
    await waitFor(() => expect(router.state.location.search).toEqual({ f: 'user.email:exact:anne@example.org' }))
    // The email field says how it is matched, and its box unticked goes back to "contains".
    expect(screen.getByLabelText('User email (exactly)')).toHaveValue('anne@example.org')
    const whole = screen.getByRole('checkbox', { name: 'This whole address only' })
    expect(whole).toBeChecked()
    await waitFor(() =>
      expect(requests.some((r) => r.url.pathname.endsWith('/event_data_preview') && r.url.searchParams.get('filters[user.email][][type]') === 'exact')).toBe(true),
    )
    await userEvent.click(whole)
    await waitFor(() => expect(router.state.location.search).toEqual({ f: 'user.email:eq:anne@example.org' }))
    expect(screen.getByLabelText('User email (contains)')).toHaveValue('anne@example.org')
    // Typed in the name field: a part of a name, until its box is ticked.
    expect(screen.getByRole('checkbox', { name: 'This whole name only' })).toBeDisabled()
  })

  it('tells members that privacy requests are for admins, without asking for them', async () => {
    const { requests } = api({ admin: false })
    renderApp('/organizations/org1/privacy?f=user.id:eq:alice')
    expect(await screen.findByText('Only organization admins can make privacy requests')).toBeInTheDocument()
    expect(requests.some((r) => r.url.pathname.includes('event_data'))).toBe(false)
  })

  it('is reached from the organization page by admins', async () => {
    api()
    const { router } = renderApp('/organizations/org1')
    await userEvent.click(await screen.findByRole('link', { name: 'Privacy requests' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Inc.: privacy requests' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/organizations/org1/privacy')
  })
})
