import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { FILTER_FIELDS, type EventField } from '../../../contract/filters.ts'
import type { PivotValue } from '../../../contract/pivots.ts'
import { errorGroup, project } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const eventFields: EventField[] = FILTER_FIELDS.map((f) => ({
  display_id: f.display_id,
  name: f.name,
  custom: false,
  scope: f.scope,
  filter_types: [...f.types],
  match: f.match,
  values: f.values ? [...f.values] : null,
  pivot: f.pivot,
}))

const pivotValue = (value: string, events: number, proportion: number): PivotValue => ({
  event_field_value: value,
  events,
  fields: {},
  first_seen: '2026-11-20T10:00:00.000Z',
  last_seen: '2026-11-22T10:00:00.000Z',
  proportion,
})

const buckets = [
  { events_count: 3, from: '2026-11-20T10:00:00.000Z', to: '2026-11-20T16:00:00.000Z' },
  { events_count: 0, from: '2026-11-20T16:00:00.000Z', to: '2026-11-20T22:00:00.000Z' },
  { events_count: 7, from: '2026-11-20T22:00:00.000Z', to: '2026-11-21T04:00:00.000Z' },
]

const routes = {
  'GET /api/projects/p1': project({ open_error_count: 2 }),
  'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
  'GET /api/organizations/org1/collaborators': [],
  'GET /api/projects/p1/event_fields': eventFields,
  'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
  'GET /api/projects/p1/trend': buckets,
  'GET /api/projects/p1/pivots/app.release_stage/values': [pivotValue('production', 90, 0.9), pivotValue('staging', 10, 0.1)],
}

/** The filters a request carried, as field → "type:value" list. */
function filtersOf(request: MockRequest | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {}
  if (!request) return result
  const params = [...request.url.searchParams]
  const types = params.filter(([key]) => key.endsWith('[][type]'))
  const values = params.filter(([key]) => key.endsWith('[][value]'))
  types.forEach(([key, type], index) => {
    const field = /^filters\[(.+)\]\[\]\[type\]$/.exec(key)![1]!
    ;(result[field] ??= []).push(`${type}:${values[index]![1]}`)
  })
  return result
}

/** The first screen of a test waits longer: cold imports in jsdom on a busy machine. */
const firstScreen = { timeout: 10_000 }

// Not the chart's request for the oldest error (sort=first_seen), which carries the same filters.
const lastRequest = (requests: MockRequest[], path: string) =>
  requests.filter((r) => r.url.pathname === path && r.url.searchParams.get('sort') !== 'first_seen').at(-1)

// The first render of the whole dashboard (router, recharts) is slow in jsdom on a busy 2-core machine.
describe('errors list filters', { timeout: 20_000 }, () => {
  // The trend above the list starts folded; these cases read what it asks for and shows.
  beforeEach(() => window.localStorage.setItem('errata.errors-trend-collapsed', 'false'))

  it('opens on the default view (status open) as a removable chip and asks the API for it', async () => {
    const { requests } = mockApi(routes)
    const { router } = renderApp('/projects/p1/errors')
    const chips = await screen.findByRole('list', { name: 'Active filters' }, firstScreen)
    expect(within(chips).getByText('Status is open')).toBeInTheDocument()
    expect(filtersOf(lastRequest(requests, '/api/projects/p1/errors'))).toEqual({ 'error.status': ['eq:open'] })

    await userEvent.click(screen.getByRole('button', { name: 'Remove filter Status is open' }))
    // f= (empty) is "no filters", as opposed to no f at all (the default view).
    await waitFor(() => expect(router.state.location.href).toMatch(/[?&]f=$/))
    await waitFor(() => expect(filtersOf(lastRequest(requests, '/api/projects/p1/errors'))).toEqual({}))
    expect(screen.queryByRole('list', { name: 'Active filters' })).not.toBeInTheDocument()
  })

  it('restores the view from a link: chips, sort and time range', async () => {
    const { requests } = mockApi(routes)
    renderApp('/projects/p1/errors?sort=users&f=app.release_stage:ne:staging&f=user.email:empty:true&f=event.since:eq:7d')
    const chips = await screen.findByRole('list', { name: 'Active filters' }, firstScreen)
    expect(within(chips).getAllByRole('listitem').map((chip) => chip.textContent)).toEqual([
      'Release stage is not staging',
      'User email is empty',
    ])
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveValue('7d')
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('users')
    const list = lastRequest(requests, '/api/projects/p1/errors')
    expect(filtersOf(list)).toEqual({
      'app.release_stage': ['ne:staging'],
      'user.email': ['empty:true'],
      'event.since': ['eq:7d'],
    })
    // The chart asks once it knows where its data starts (here before the range: the range as it is).
    await waitFor(() => expect(filtersOf(lastRequest(requests, '/api/projects/p1/trend'))).toEqual(filtersOf(list)))
  })

  it('offers every value of a pivot field, on the project\'s values page, after its suggestions', async () => {
    mockApi(routes)
    const { router } = renderApp('/projects/p1/errors?f=app.release_stage:ne:staging')
    const input = await screen.findByRole('combobox', { name: 'Filter errors' }, firstScreen)
    await userEvent.click(input)
    await userEvent.type(input, 'release')
    await userEvent.keyboard('{Enter}')
    const values = await screen.findByRole('listbox', { name: 'Values of Release stage' })
    const seeAll = await within(values).findByRole('option', { name: /See all values of Release stage/ })
    expect(within(values).getAllByRole('option').at(-1)).toBe(seeAll)
    await userEvent.keyboard('{End}{Enter}')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/pivots/app.release_stage'))
    // With the view's filters, so the page counts what the list shows.
    expect(new URLSearchParams(router.state.location.searchStr).getAll('f')).toEqual(['app.release_stage:ne:staging'])
  })

  it('adds a chip through the combobox with the keyboard: field, then a value from the pivot', async () => {
    const { requests } = mockApi(routes)
    const { router } = renderApp('/projects/p1/errors')
    const input = await screen.findByRole('combobox', { name: 'Filter errors' }, firstScreen)
    expect(input).toHaveAttribute('id', 'error-filter-input')

    await userEvent.click(input)
    const fields = await screen.findByRole('listbox', { name: 'Fields' })
    expect(within(fields).getByRole('option', { name: /Release stage/ })).toBeInTheDocument()
    await userEvent.type(input, 'release')
    // The field, then the typed text as a free-text search.
    expect(within(fields).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'Release stageapp.release_stage',
      'Search “release”in error class, message, context',
    ])
    await userEvent.keyboard('{Enter}')

    const values = await screen.findByRole('listbox', { name: 'Values of Release stage' })
    expect(await within(values).findByRole('option', { name: /staging/ })).toBeInTheDocument()
    const pivotRequest = lastRequest(requests, '/api/projects/p1/pivots/app.release_stage/values')
    // Suggestions are the project's values (rollups), not narrowed by the view's filters.
    expect(filtersOf(pivotRequest)).toEqual({})
    await userEvent.keyboard('{ArrowDown}')
    expect(input).toHaveAttribute('aria-activedescendant', within(values).getByRole('option', { name: /staging/ }).id)
    await userEvent.keyboard('{Enter}')

    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ f: ['error.status:eq:open', 'app.release_stage:eq:staging'] }),
    )
    expect(router.state.location.href).toContain('f=error.status:eq:open&f=app.release_stage:eq:staging')
    await waitFor(() =>
      expect(filtersOf(lastRequest(requests, '/api/projects/p1/errors'))).toEqual({
        'error.status': ['eq:open'],
        'app.release_stage': ['eq:staging'],
      }),
    )
    expect(within(screen.getByRole('list', { name: 'Active filters' })).getByText('Release stage is staging')).toBeInTheDocument()
    expect(input).toHaveFocus()
  })

  it('searches free text: typed words no field matches become a search of class, message and context', async () => {
    const { requests } = mockApi(routes)
    const { router } = renderApp('/projects/p1/errors')
    const input = await screen.findByRole('combobox', { name: 'Filter errors' }, firstScreen)
    await userEvent.click(input)
    await userEvent.type(input, 'jwt expired')
    const fields = await screen.findByRole('listbox', { name: 'Fields' })
    expect(within(fields).getAllByRole('option')[0]).toHaveTextContent('Search “jwt expired”in error class, message, context')
    await userEvent.keyboard('{Enter}')
    await waitFor(() => expect(router.state.location.search).toMatchObject({ f: ['error.status:eq:open', 'search:eq:jwt expired'] }))
    await waitFor(() =>
      expect(filtersOf(lastRequest(requests, '/api/projects/p1/errors'))).toEqual({ 'error.status': ['eq:open'], search: ['eq:jwt expired'] }),
    )
    expect(within(screen.getByRole('list', { name: 'Active filters' })).getByText('Search contains jwt expired')).toBeInTheDocument()
    expect(screen.getByText('Search looked in error class, message and context.')).toBeInTheDocument()
  })

  it('on an exact-match field, Enter picks the value that matches what was typed, not the fragment', async () => {
    mockApi({
      ...routes,
      'GET /api/projects/p1/pivots/app.release_stage/values': [
        pivotValue('production', 80, 0.8),
        pivotValue('prestaging', 10, 0.1),
        pivotValue('staging', 10, 0.1),
      ],
    })
    const { router } = renderApp('/projects/p1/errors')
    const input = await screen.findByRole('combobox', { name: 'Filter errors' }, firstScreen)
    await userEvent.click(input)
    await userEvent.type(input, 'release{Enter}')
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Condition on Release stage' }), 'ne')
    await userEvent.type(input, 'stag')
    const values = await screen.findByRole('listbox', { name: 'Values of Release stage' })
    await waitFor(() => expect(within(values).getAllByRole('option')).toHaveLength(4))
    const options = within(values).getAllByRole('option')
    // Starting with what was typed ranks before containing it; the typed text comes after them, marked
    // as typed, and the way to the field's values page last.
    expect(options.map((option) => option.textContent)).toEqual([
      'staging10 events',
      'prestaging10 events',
      '“stag”as typed',
      'See all values of Release stagein this view',
    ])
    expect(input).toHaveAttribute('aria-activedescendant', options[0]!.id)
    await userEvent.keyboard('{Enter}')
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ f: ['error.status:eq:open', 'app.release_stage:ne:staging'] }),
    )
    expect(screen.getByText('Release stage is not staging')).toBeInTheDocument()

    // With no value matching, the typed text is the first choice.
    await userEvent.type(input, 'release{Enter}')
    await userEvent.type(input, 'qa')
    const typed = await within(screen.getByRole('listbox', { name: 'Values of Release stage' })).findByRole('option', { name: /qa/ })
    expect(input).toHaveAttribute('aria-activedescendant', typed.id)
    await userEvent.keyboard('{Enter}')
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({
        f: ['error.status:eq:open', 'app.release_stage:ne:staging', 'app.release_stage:eq:qa'],
      }),
    )
  })

  it('adds "does not contain" and typed values on a substring field, and Escape closes the suggestions', async () => {
    mockApi(routes)
    const { router } = renderApp('/projects/p1/errors?f=event.message:eq:timeout')
    // Substring fields say what the API does with them: contains, not equals.
    expect(await screen.findByText('Error message contains timeout', {}, firstScreen)).toBeInTheDocument()
    const input = screen.getByRole('combobox', { name: 'Filter errors' })
    await userEvent.click(input)
    await userEvent.type(input, 'User email{Enter}')
    const condition = screen.getByRole('combobox', { name: 'Condition on User email' })
    expect(within(condition).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'contains',
      'does not contain',
      'is exactly',
      'is empty',
      'is present',
    ])
    await userEvent.selectOptions(condition, 'ne')
    await userEvent.type(input, 'bot@example.com')
    const values = screen.getByRole('listbox', { name: 'Values of User email' })
    expect(within(values).getByRole('option', { name: /bot@example.com/ })).toHaveTextContent('does not contain')
    await userEvent.keyboard('{Enter}')
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ f: ['event.message:eq:timeout', 'user.email:ne:bot@example.com'] }),
    )
    expect(screen.getByText('User email does not contain bot@example.com')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Remove filter User email does not contain bot@example.com' })).toBeInTheDocument()

    await userEvent.click(input)
    expect(input).toHaveAttribute('aria-expanded', 'true')
    await userEvent.keyboard('{Escape}')
    expect(input).toHaveAttribute('aria-expanded', 'false')
  })

  it('writes the time range as event.since and sends it to the list and the trend', async () => {
    const { requests } = mockApi(routes)
    const { router } = renderApp('/projects/p1/errors')
    const range = await screen.findByRole('combobox', { name: 'Time range' }, firstScreen)
    expect(range).toHaveValue('all')
    await userEvent.selectOptions(range, '24h')
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ f: ['error.status:eq:open', 'event.since:eq:24h'] }),
    )
    await waitFor(() => {
      expect(filtersOf(lastRequest(requests, '/api/projects/p1/errors'))['event.since']).toEqual(['eq:24h'])
      expect(filtersOf(lastRequest(requests, '/api/projects/p1/trend'))['event.since']).toEqual(['eq:24h'])
    })
    expect(lastRequest(requests, '/api/projects/p1/trend')?.url.searchParams.get('resolution')).toBe('30m')
  })

  it('draws the trend, changes its resolution, and narrows the time range to a chosen bucket', async () => {
    const { requests } = mockApi(routes)
    const { router } = renderApp('/projects/p1/errors?f=event.since:eq:7d')
    const chart = await screen.findByRole('figure', { name: /Events per hour, last 7 days: 10 events/ }, firstScreen)
    expect(chart.querySelectorAll('.recharts-bar-rectangle').length).toBeGreaterThan(0)
    const rows = within(chart).getAllByRole('row')
    expect(rows).toHaveLength(4)
    expect(within(rows[3]!).getByText('7')).toBeInTheDocument()

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Resolution' }), '1d')
    await waitFor(() => expect(router.state.location.search).toMatchObject({ resolution: '1d' }))
    await waitFor(() => expect(lastRequest(requests, '/api/projects/p1/trend')?.url.searchParams.get('resolution')).toBe('1d'))

    await userEvent.click(within(chart).getAllByRole('button', { name: /^Zoom to/ })[2]!)
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({
        f: ['event.since:eq:2026-11-20T22:00:00.000Z', 'event.before:eq:2026-11-21T04:00:00.000Z'],
      }),
    )
    // The chosen range reads short enough for the control; the exact bounds are in its title.
    const range = screen.getByRole('combobox', { name: 'Time range' })
    expect(range).toHaveDisplayValue(/^Nov 2\d, \d\d:\d\d\s–\s(Nov 2\d, )?\d\d:\d\d$/)
    expect(range).toHaveAttribute('title', expect.stringMatching(/2026.*–.*2026/))
  })

  it('shows the trend’s empty and failed states with a retry', async () => {
    let fail = true
    mockApi({
      ...routes,
      'GET /api/projects/p1/trend': () => (fail ? json({ errors: ['trend unavailable'] }, { status: 503 }) : json([{ ...buckets[1] }])),
    })
    renderApp('/projects/p1/errors')
    const alert = await screen.findByRole('alert', {}, firstScreen)
    expect(alert).toHaveTextContent('trend unavailable')
    fail = false
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }))
    expect(await screen.findByText('No events in this range')).toBeInTheDocument()
  })

  it('offers a way out when no error matches the filters of a project that has errors', async () => {
    mockApi({
      ...routes,
      'GET /api/projects/p1/errors': (request) =>
        request.url.searchParams.has('filters[error.status][][type]') ? json([]) : json([errorGroup()]),
    })
    const { router } = renderApp('/projects/p1/errors')
    expect(await screen.findByText('No errors match these filters', {}, firstScreen)).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Show all errors' }))
    await waitFor(() => expect(router.state.location.href).toMatch(/[?&]f=$/))
    expect(await screen.findByRole('link', { name: /^TypeError:/ })).toBeInTheDocument()
  })
})
