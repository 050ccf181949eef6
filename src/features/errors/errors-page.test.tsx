import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { errorGroup, event, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const baseRoutes = {
  'GET /api/projects/p1': project({ open_error_count: 2 }),
  'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
  'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
}

describe('errors list page', () => {
  it('lists errors with class, message, context, counts and times with the exact time on hover', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': json(
        [
          errorGroup(),
          errorGroup({ id: 'e2', error_class: 'RangeError', message: 'Invalid array length', context: null, status: 'fixed', severity: 'warning', events: 3, users: 1 }),
        ],
        { headers: { 'X-Total-Count': '2' } },
      ),
    })
    renderApp('/projects/p1/errors')

    const list = await screen.findByRole('list', { name: 'Errors' })
    const rows = within(list).getAllByRole('listitem')
    expect(rows).toHaveLength(2)
    const first = rows[0]!
    expect(within(first).getByRole('link', { name: /^TypeError:/ })).toHaveAttribute('href', '/projects/p1/errors/e1')
    // Rows of one class are told apart by their message, for screen readers too.
    expect(within(first).getByRole('link', { name: "TypeError: Cannot read properties of undefined (reading 'total')" })).toBeInTheDocument()
    expect(within(first).getByRole('checkbox', { name: 'Select TypeError' })).toHaveAccessibleDescription(/reading 'total'/)
    expect(within(first).getByText("Cannot read properties of undefined (reading 'total')")).toBeInTheDocument()
    expect(within(first).getByText('POST /checkout')).toBeInTheDocument()
    expect(within(first).getAllByText('1,234').length).toBeGreaterThan(0)
    expect(within(first).getByText('open')).toBeInTheDocument()
    const times = first.querySelectorAll('time[datetime="2026-11-22T10:00:00.000Z"]')
    expect(times.length).toBeGreaterThan(0)
    expect(times[0]).toHaveAttribute('title', expect.stringMatching(/2026/))
    expect(within(rows[1]!).getByText('fixed')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'checkout-api: errors' })).toBeInTheDocument()
    // The default view (status is open) counts the open errors: one number, said once.
    expect(screen.getByText('2 open errors')).toBeInTheDocument()
  })

  it('shows an error’s app versions oldest…newest as versions, not in the order they arrived', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': json([errorGroup({ app_versions: ['2.4.1', '2.10.0-beta.1', '2.4.0'] })], { headers: { 'X-Total-Count': '1' } }),
    })
    renderApp('/projects/p1/errors')
    const row = within(await screen.findByRole('list', { name: 'Errors' })).getByRole('listitem')
    const versions = within(row).getByText('2.4.0…2.10.0-beta.1')
    expect(versions).toHaveAttribute('title', '2.4.0, 2.4.1, 2.10.0-beta.1')
  })

  it('reads the project once for a page load (the loader’s read serves the page)', async () => {
    const { requests } = mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
    })
    renderApp('/projects/p1/errors')
    await screen.findByRole('list', { name: 'Errors' })
    expect(screen.getByRole('heading', { level: 1, name: 'checkout-api: errors' })).toBeInTheDocument()
    // The header, the filter bar and the list's heading read it too, after the loader.
    expect(requests.filter((r) => r.method === 'GET' && r.url.pathname === '/api/projects/p1')).toHaveLength(1)
  })

  it('says which count is the filtered list’s and which the project’s', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1': project({ open_error_count: 2970 }),
      'GET /api/projects/p1/errors': (request) => {
        const stage = request.url.searchParams.get('filters[app.release_stage][][value]')
        const total = stage === 'nowhere' ? 0 : stage === 'production' ? 2797 : 3000
        return json(total === 0 ? [] : [errorGroup()], { headers: { 'X-Total-Count': String(total) } })
      },
    })
    const { router } = renderApp('/projects/p1/errors?f=app.release_stage:eq:production')
    expect(await screen.findByText('2,797 matching · 2,970 open in project')).toBeInTheDocument()

    // Nothing matches: still no "0 errors" beside the project's open errors.
    await router.navigate({ to: '/projects/$projectId/errors', params: { projectId: 'p1' }, search: { f: ['app.release_stage:eq:nowhere'] } })
    expect(await screen.findByText('0 matching · 2,970 open in project')).toBeInTheDocument()

    // No filters at all: both counts are the project's.
    await router.navigate({ to: '/projects/$projectId/errors', params: { projectId: 'p1' }, search: { f: [] } })
    expect(await screen.findByText('3,000 errors · 2,970 open')).toBeInTheDocument()
  })

  it('shows the matching events beside the all-time count when a time range scopes the list', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': () => json([errorGroup({ events: 10_512, users: 812, matching_events: 37 })], { headers: { 'X-Total-Count': '1' } }),
    })
    renderApp('/projects/p1/errors?f=event.since:eq:7d')
    const row = within(await screen.findByRole('list', { name: 'Errors' })).getAllByRole('listitem')[0]!
    expect(within(row).getAllByText((_, element) => element?.textContent === '37 matching events of 10,512 in all').length).toBeGreaterThan(0)
    expect(within(row).getByText('37 matching of 10,512 events')).toBeInTheDocument()
    // Users stay counted over the error's life: the row says so rather than pass them off as matching.
    expect(within(row).getAllByText((_, element) => element?.textContent === '812 users all time').length).toBeGreaterThan(0)
    expect(within(row).getByText('812 users in all')).toBeInTheDocument()
  })

  it('keeps the sort in the URL and asks the API for it', async () => {
    const { requests } = mockApi({ ...baseRoutes, 'GET /api/projects/p1/errors': [errorGroup()] })
    const { router } = renderApp('/projects/p1/errors?sort=users&direction=asc')
    await screen.findByRole('list', { name: 'Errors' })
    const listRequest = requests.find((r) => r.url.pathname === '/api/projects/p1/errors')
    expect(listRequest?.url.searchParams.get('sort')).toBe('users')
    expect(listRequest?.url.searchParams.get('direction')).toBe('asc')
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('users')

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'events')
    await waitFor(() => expect(router.state.location.search).toMatchObject({ sort: 'events', direction: 'asc' }))
    await userEvent.click(screen.getByRole('button', { name: /Ascending order/ }))
    await waitFor(() => expect(router.state.location.search).toMatchObject({ sort: 'events', direction: 'desc' }))
    await waitFor(() =>
      expect(requests.some((r) => r.url.searchParams.get('sort') === 'events' && r.url.searchParams.get('direction') === 'desc')).toBe(true),
    )
  })

  it('loads the next page by following the Link header', async () => {
    const next = 'http://errata.test/api/projects/p1/errors?sort=last_seen&direction=desc&per_page=50&cursor=page2'
    const { requests } = mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': (request) =>
        request.url.searchParams.get('cursor') === 'page2'
          ? json([errorGroup({ id: 'e9', error_class: 'SecondPageError' })], { headers: { 'X-Total-Count': '2' } })
          : json([errorGroup()], { headers: { Link: `<${next}>; rel="next"`, 'X-Total-Count': '2' } }),
    })
    renderApp('/projects/p1/errors')
    expect(await screen.findByRole('link', { name: /^SecondPageError:/ })).toBeInTheDocument()
    // The list's pages (not the chart's request for the oldest error, sorted by first_seen).
    const secondRequest = requests.filter((r) => r.url.pathname === '/api/projects/p1/errors' && r.url.searchParams.get('sort') === 'last_seen')[1]
    expect(secondRequest?.url.origin).toBe(window.location.origin)
    expect(secondRequest?.url.searchParams.get('cursor')).toBe('page2')
  })

  it('shows "Send your first error" with the API key and a copyable notifier snippet when empty', async () => {
    mockApi({ ...baseRoutes, 'GET /api/projects/p1/errors': json([], { headers: { 'X-Total-Count': '0' } }) })
    renderApp('/projects/p1/errors')
    expect(await screen.findByRole('heading', { name: 'Send your first error' })).toBeInTheDocument()
    expect(document.title).toBe('checkout-api: errors · Errata')
    expect(screen.getByLabelText('API key of checkout-api')).toHaveTextContent('0123456789abcdef0123456789abcdef')
    const snippet = screen.getByLabelText('Notifier snippet')
    expect(snippet).toHaveTextContent("apiKey: '0123456789abcdef0123456789abcdef'")
    expect(snippet).toHaveTextContent(`notify: '${window.location.origin}/notify'`)
    expect(snippet).toHaveTextContent(`sessions: '${window.location.origin}/sessions'`)
    expect(screen.getByRole('button', { name: 'Copy notifier snippet' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Copy API key of checkout-api' })).toBeInTheDocument()
    expect(screen.queryByRole('combobox', { name: 'Sort by' })).not.toBeInTheDocument()

    // A node project starts on JavaScript; another notifier is one choice away.
    const notifier = screen.getByRole('combobox', { name: 'Notifier' })
    expect(notifier).toHaveDisplayValue('JavaScript (browser, Node.js)')
    expect(screen.getByText('npm install @bugsnag/js')).toBeInTheDocument()
    await userEvent.selectOptions(notifier, 'Python')
    expect(screen.getByText('pip install bugsnag')).toBeInTheDocument()
    expect(snippet).toHaveTextContent(`session_endpoint="${window.location.origin}/sessions"`)
  })

  it('starts the setup of an iOS project on the Cocoa notifier', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1': project({ type: 'ios' }),
      'GET /api/projects/p1/errors': json([], { headers: { 'X-Total-Count': '0' } }),
    })
    renderApp('/projects/p1/errors')
    expect(await screen.findByRole('combobox', { name: 'Notifier' })).toHaveDisplayValue('iOS, macOS, tvOS')
    expect(screen.getByLabelText('Notifier snippet')).toHaveTextContent('BugsnagEndpointConfiguration(notify:')
  })

  it('reads the open count again when the first errors arrive while the page waits for them', async () => {
    let arrived = false
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1': () => json(project({ open_error_count: arrived ? 1 : 0 })),
      'GET /api/projects/p1/errors': () =>
        arrived ? json([errorGroup()], { headers: { 'X-Total-Count': '1' } }) : json([], { headers: { 'X-Total-Count': '0' } }),
    })
    const { queryClient } = renderApp('/projects/p1/errors')
    expect(await screen.findByRole('heading', { name: 'Send your first error' })).toBeInTheDocument()
    arrived = true
    // What the page's poll does every few seconds.
    await queryClient.refetchQueries({ queryKey: ['errors'] })
    expect(await screen.findByText('1 open error')).toBeInTheDocument()
  })

  it('replaces data on screen with "not found" when a refresh answers 404 (access revoked, project deleted)', async () => {
    let gone = false
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1': () => (gone ? json({ errors: ['Project not found'] }, { status: 404 }) : json(project())),
      'GET /api/projects/p1/errors': () =>
        gone ? json({ errors: ['Project not found'] }, { status: 404 }) : json([errorGroup({ error_class: 'SecretBillingError' })]),
    })
    const { queryClient } = renderApp('/projects/p1/errors')
    expect(await screen.findByText('SecretBillingError')).toBeInTheDocument()
    gone = true
    await queryClient.refetchQueries({ queryKey: ['projects'] })
    expect(await screen.findByRole('heading', { name: 'Project not found' })).toBeInTheDocument()
    expect(screen.queryByText('SecretBillingError')).not.toBeInTheDocument()
  })

  it('says which project was not found', async () => {
    mockApi({ 'GET /api/projects/nope': json({ errors: ['project not found'] }, { status: 404 }) })
    renderApp('/projects/nope/errors')
    expect(await screen.findByRole('heading', { name: 'Project not found' })).toBeInTheDocument()
    expect(screen.getByText('nope')).toBeInTheDocument()
  })

  it('shows the failure with a Retry that loads the page again', async () => {
    let fail = true
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': () =>
        fail ? json({ errors: ['database unavailable'] }, { status: 503 }) : json([errorGroup()]),
    })
    renderApp('/projects/p1/errors')
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('database unavailable')
    fail = false
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('link', { name: /^TypeError:/ })).toBeInTheDocument()
  })

  it('keeps the page’s controls when a new sort cannot be loaded, and says so once, in the list’s place', async () => {
    let down = false
    const unreachable = () => Promise.reject(new TypeError('Failed to fetch'))
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1': () => (down ? unreachable() : json(project({ open_error_count: 2 }))),
      'GET /api/projects/p1/errors': (request) =>
        down ? unreachable() : json([errorGroup({ error_class: request.url.searchParams.get('sort') === 'events' ? 'BusiestError' : 'TypeError' })]),
      'GET /api/projects/p1/trend': [],
      'GET /api/projects/p1/error_trends': {},
    })
    const { router } = renderApp('/projects/p1/errors')
    expect(await screen.findByRole('link', { name: /^TypeError:/ })).toBeInTheDocument()

    down = true
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'events')
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Could not load this project’s errors')
    expect(alert).toHaveTextContent('Could not reach the Errata server')
    // The page stays: its heading, the sort just chosen, the filters; only the list is replaced.
    expect(screen.getByRole('heading', { level: 1, name: 'checkout-api: errors' })).toBeInTheDocument()
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('events')
    expect(screen.getByLabelText('Time range')).toBeInTheDocument()
    expect(screen.queryByRole('list', { name: 'Errors' })).not.toBeInTheDocument()
    // Said once: no "Could not refresh data" toast repeating the card.
    expect(screen.queryByText('Could not refresh data')).not.toBeInTheDocument()

    down = false
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('link', { name: /^BusiestError:/ })).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(router.state.location.search).toMatchObject({ sort: 'events' })
    expect(screen.queryByText('Could not refresh data')).not.toBeInTheDocument()
  })

  it('sends a signed-out visitor to the login page', async () => {
    mockApi({})
    const { router } = renderApp('/projects/p1/errors', { token: null })
    expect(await screen.findByRole('heading', { name: 'Sign in to Errata' })).toBeInTheDocument()
    expect(document.title).toBe('Sign in · Errata')
    expect(router.state.location.search).toMatchObject({ redirect: expect.stringMatching(/^\/projects\/p1\/errors/) })
  })
})

/** The list and the error page of e1, with the requests they make. */
function listAndErrorApi() {
  return mockApi({
    ...baseRoutes,
    'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
    'GET /api/projects/p1/errors/e1': errorGroup(),
    'GET /api/projects/p1/errors/e1/latest_event': event(),
    'GET /api/projects/p1/errors/e1/events': [event()],
    'GET /api/projects/p1/errors/e1/status_changes': [],
    'GET /api/projects/p1/errors/e1/trend': [],
    'GET /api/projects/p1/errors/e1/pivots/app.release_stage/values': [],
  })
}

const filteredList =
  '/projects/p1/errors?sort=events&f=error.status:eq:open&f=event.since:eq:24h&f=app.release_stage:eq:staging'
/** The list's event filters: what an error opened from it shows its events by. */
const eventFilters = ['event.since:eq:24h', 'app.release_stage:eq:staging']

describe('opening an error from a filtered list', { timeout: 20_000 }, () => {
  it('carries the time range and event filters, not the status, to the error and its trend', async () => {
    const { requests } = listAndErrorApi()
    const { router } = renderApp(filteredList)
    const link = await screen.findByRole('link', { name: /^TypeError:/ }, { timeout: 10_000 })
    expect(link).toHaveAttribute('href', '/projects/p1/errors/e1?f=event.since:eq:24h&f=app.release_stage:eq:staging')

    await userEvent.click(link)
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e1'))
    expect(router.state.location.search).toEqual({ f: eventFilters })
    await waitFor(() => expect(requests.some((r) => r.url.pathname === '/api/projects/p1/errors/e1/trend')).toBe(true))
    const trend = requests.find((r) => r.url.pathname === '/api/projects/p1/errors/e1/trend')!
    expect(trend.url.searchParams.getAll('filters[app.release_stage][][value]')).toEqual(['staging'])
    expect(trend.url.searchParams.getAll('filters[event.since][][value]')).toEqual(['24h'])
    expect(trend.url.searchParams.has('filters[error.status][][value]')).toBe(false)
  })

  it('opens the focused error with Enter with the same filters', async () => {
    listAndErrorApi()
    const { router } = renderApp(filteredList)
    await screen.findByRole('link', { name: /^TypeError:/ }, { timeout: 10_000 })
    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^TypeError:/ })).toHaveFocus())
    // Enter on the row (not its link), as when the focus is on the row's cell.
    screen.getByRole('link', { name: /^TypeError:/ }).blur()
    await userEvent.keyboard('{Enter}')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e1'))
    expect(router.state.location.search).toEqual({ f: eventFilters })
  })

  it('leads back from the error to the list it came from, sort and status included', async () => {
    listAndErrorApi()
    const { router } = renderApp(filteredList)
    await userEvent.click(await screen.findByRole('link', { name: /^TypeError:/ }, { timeout: 10_000 }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e1'))
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumbs' })
    await userEvent.click(await within(crumbs).findByRole('link', { name: 'checkout-api' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors'))
    expect(router.state.location.search).toEqual({ sort: 'events', direction: 'desc', f: ['error.status:eq:open', ...eventFilters] })
  })

  it('leads from a shared link to an error to the open errors with its event filters', async () => {
    listAndErrorApi()
    renderApp('/projects/p1/errors/e1?f=event.since:eq:7d')
    const crumbs = await screen.findByRole('navigation', { name: 'Breadcrumbs' })
    await waitFor(() =>
      expect(within(crumbs).getByRole('link', { name: 'checkout-api' })).toHaveAttribute(
        'href',
        '/projects/p1/errors?f=error.status:eq:open&f=event.since:eq:7d',
      ),
    )
  })
})
