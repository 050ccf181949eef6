import { QueryClientProvider } from '@tanstack/react-query'
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Filters } from '../../../contract/filters.ts'
import type { PivotValue } from '../../../contract/pivots.ts'
import { createQueryClient } from '../../api/query-client.ts'
import { parseSearch, stringifySearch } from '../../lib/search-params.ts'
import { writeToken } from '../../lib/token-store.ts'
import { errorGroup, errorPageRoutes, event, project } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { ErrorPivotsPanel } from './error-pivots-panel.tsx'

const value = (event_field_value: string, events: number, proportion: number, fields: Record<string, string> = {}): PivotValue => ({
  event_field_value,
  events,
  fields,
  first_seen: '2026-11-20T10:00:00.000Z',
  last_seen: '2026-11-22T10:00:00.000Z',
  proportion,
})

/** The panel alone on an error's page, in a router that also knows the pages its links open. */
function renderPanel(filters: Filters, initialEntry = '/projects/p1/errors/e1') {
  writeToken('test-token')
  const queryClient = createQueryClient()
  queryClient.setDefaultOptions({ queries: { retry: false } })
  const rootRoute = createRootRoute({ component: Outlet })
  const panelRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: '/projects/$projectId/errors/$errorId',
    component: () => <ErrorPivotsPanel projectId="p1" errorId="e1" filters={filters} />,
  })
  const errorsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/projects/$projectId/errors', component: () => <p>errors list</p> })
  const pivotRoute = createRoute({ getParentRoute: () => rootRoute, path: '/projects/$projectId/pivots/$fieldId', component: () => <p>pivot page</p> })
  const errorPivotRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: '/projects/$projectId/errors/$errorId/pivots/$fieldId',
    component: () => <p>error pivot page</p>,
  })
  const router = createRouter({
    routeTree: rootRoute.addChildren([panelRoute, errorsRoute, pivotRoute, errorPivotRoute]),
    history: createMemoryHistory({ initialEntries: [initialEntry] }),
    parseSearch,
    stringifySearch,
  })
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  )
  return { router }
}

describe('error pivots panel', { timeout: 20_000 }, () => {
  it('shows the top values with their share; clicking one narrows this error’s page to it, keeping its filters and tab', async () => {
    const { requests } = mockApi({
      'GET /api/projects/p1/errors/e1/pivots/app.release_stage/values': [value('production', 90, 0.9), value('staging', 10, 0.1)],
    })
    const { router } = renderPanel(
      { 'event.since': [{ type: 'eq', value: '7d' }] },
      '/projects/p1/errors/e1?f=event.since:eq:7d&resolution=1h&cursor=older',
    )
    const list = await screen.findByRole('list', { name: 'Top Release stage values' }, { timeout: 10_000 })
    const rows = within(list).getAllByRole('listitem')
    expect(rows).toHaveLength(2)
    expect(rows[0]).toHaveTextContent('production')
    expect(rows[0]).toHaveTextContent('90%')
    expect(rows[0]).toHaveTextContent('90 events')
    expect(rows[1]).toHaveTextContent('10%')
    const request = requests.find((r) => r.url.pathname.endsWith('/pivots/app.release_stage/values'))
    expect(request?.url.searchParams.get('per_page')).toBe('5')
    expect(request?.url.searchParams.getAll('filters[event.since][][value]')).toEqual(['7d'])

    // The error's values, not the whole project's.
    expect(screen.getByRole('link', { name: 'See all values of Release stage for this error' })).toHaveAttribute(
      'href',
      '/projects/p1/errors/e1/pivots/app.release_stage?f=event.since:eq:7d',
    )
    await userEvent.click(within(rows[0]!).getByRole('link', { name: 'Show this error’s events where Release stage is production' }))
    // Still on the error: its time range kept, the value added, its other view settings kept, events from the first page.
    await waitFor(() => expect(router.state.location.search).toEqual({ f: ['event.since:eq:7d', 'app.release_stage:eq:production'], resolution: '1h' }))
    expect(router.state.location.pathname).toBe('/projects/p1/errors/e1')
    expect(screen.queryByText('errors list')).not.toBeInTheDocument()
  })

  it('shows users by name and email, and a failed tab with a retry', async () => {
    let fail = true
    mockApi({
      'GET /api/projects/p1/errors/e1/pivots/app.release_stage/values': [],
      'GET /api/projects/p1/errors/e1/pivots/user.id/values': () =>
        fail
          ? json({ errors: ['pivots unavailable'] }, { status: 503 })
          : json([value('u-42', 3, 0.75, { 'user.name': 'Ada Lovelace', 'user.email': 'ada@example.com' })]),
    })
    renderPanel({})
    expect(await screen.findByText('No Release stage values', {}, { timeout: 10_000 })).toBeInTheDocument()
    await userEvent.click(screen.getByRole('tab', { name: 'Users' }))
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('pivots unavailable')
    fail = false
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }))
    const list = await screen.findByRole('list', { name: 'Top User id values' })
    expect(list).toHaveTextContent('Ada Lovelace · ada@example.com')
    expect(list).toHaveTextContent('u-42')
    expect(list).toHaveTextContent('75%')
    expect(within(list).getByRole('link', { name: 'Show this error’s events where User id is u-42' })).toHaveAttribute(
      'href',
      '/projects/p1/errors/e1?f=user.id:eq:u-42',
    )
  })
})

describe('a pivot value on the error page', { timeout: 20_000 }, () => {
  it('narrows the error’s events, its latest event, its trend and its pivots to it, on the error’s own page', async () => {
    const { requests } = mockApi({
      ...errorPageRoutes(),
      'GET /api/projects/p1/errors/e1/pivots/app.release_stage/values': [value('production', 2, 1)],
      'GET /api/projects/p1/errors/e1/events': (request) =>
        json(request.url.searchParams.has('filters[app.release_stage][][value]') ? [event({ id: 'ev-prod', context: 'production-only' })] : []),
    })
    renderApp('/projects/p1/errors/e1?f=app.release_stage:eq:production')
    expect(await screen.findByRole('cell', { name: 'production-only' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByRole('region', { name: /^Events/ })).toHaveTextContent('matching the filters')
    for (const path of ['/events', '/trend', '/pivots/app.release_stage/values']) {
      const asked = requests.filter((request) => request.url.pathname === `/api/projects/p1/errors/e1${path}`)
      expect(asked.length, path).toBeGreaterThan(0)
      expect(asked.every((request) => request.url.searchParams.getAll('filters[app.release_stage][][value]').includes('production')), path).toBe(true)
    }
    // The latest-event panel shows the newest event the filters match, not the error's latest.
    const latest = await screen.findByRole('link', { name: /Open latest event/ })
    expect(latest).toHaveAttribute('href', expect.stringContaining('/events/ev-prod'))
    expect(screen.getByRole('heading', { name: /^Latest matching event/ })).toBeInTheDocument()
    expect(requests.some((request) => request.url.pathname.endsWith('/latest_event'))).toBe(false)
  })
})

describe('pivot page', { timeout: 20_000 }, () => {
  const base = {
    'GET /api/projects/p1': project(),
    'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
    'GET /api/projects/p1/event_fields': [],
    'GET /api/organizations/org1/collaborators': [],
    'GET /api/projects/p1/errors': [errorGroup()],
    'GET /api/projects/p1/trend': [],
  }

  const pivotPath = 'http://errata.test/api/projects/p1/pivots/device.os_name/values?per_page=50'
  /** Three pages: iOS and Android, then Windows (cursor c2), then Linux (cursor c3); any other cursor is refused. */
  const pagedValues = {
    ...base,
    'GET /api/projects/p1/pivots/device.os_name/values': (request: MockRequest) => {
      const headers = (next?: string) => ({ headers: { 'X-Total-Count': '4', ...(next ? { Link: `<${pivotPath}&cursor=${next}>; rel="next"` } : {}) } })
      switch (request.url.searchParams.get('cursor')) {
        case null:
          return json([value('iOS', 60, 0.6), value('Android', 38, 0.38)], headers('c2'))
        case 'c2':
          return json([value('Windows', 1, 0.01)], headers('c3'))
        case 'c3':
          return json([value('Linux', 1, 0.01)], headers())
        default:
          return json({ errors: ['cursor: was not issued for this list'] }, { status: 400 })
      }
    },
  }

  it('lists every value of the field with the filters, pages with the cursor, and opens the filtered list', async () => {
    const { requests } = mockApi(pagedValues)
    const { router } = renderApp('/projects/p1/pivots/device.os_name?f=app.release_stage:eq:production')
    expect(await screen.findByRole('heading', { level: 1, name: 'OS name values' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByText(/4 values/)).toBeInTheDocument()
    // The project's tab bar is where it is on every project page, with its errors as the current tab.
    const projectTabs = screen.getByRole('navigation', { name: 'Project' })
    expect(within(projectTabs).getByRole('link', { name: 'Errors' })).toHaveAttribute('aria-current', 'page')
    const list = screen.getByRole('list', { name: 'OS name values' })
    expect(within(list).getAllByRole('listitem')).toHaveLength(2)
    const first = requests.find((r) => r.url.pathname === '/api/projects/p1/pivots/device.os_name/values')
    expect(first?.url.searchParams.getAll('filters[app.release_stage][][value]')).toEqual(['production'])
    expect(first?.url.searchParams.get('per_page')).toBe('50')
    expect(screen.queryByRole('link', { name: /Previous page|First page/ })).not.toBeInTheDocument()

    await userEvent.click(screen.getByRole('link', { name: /Next page/ }))
    expect(await screen.findByText('Windows')).toBeInTheDocument()
    expect(router.state.location.search).toMatchObject({ cursor: 'c2' })
    // The previous page is the first one: one link, not two to the same place.
    expect(screen.getByRole('link', { name: 'Previous page' })).toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'First page' })).not.toBeInTheDocument()

    await userEvent.click(screen.getByRole('link', { name: /Next page/ }))
    expect(await screen.findByText('Linux')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'First page' })).toBeInTheDocument()
    await userEvent.click(screen.getByRole('link', { name: 'Previous page' }))
    expect(await screen.findByText('Windows')).toBeInTheDocument()
    expect(router.state.location.search).toMatchObject({ cursor: 'c2', f: 'app.release_stage:eq:production' })
    await userEvent.click(screen.getByRole('link', { name: 'Previous page' }))
    expect(await screen.findByText('iOS')).toBeInTheDocument()
    expect(router.state.location.search).not.toHaveProperty('cursor')

    await userEvent.click(screen.getByRole('link', { name: 'Show errors where OS name is iOS' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors'))
    expect(router.state.location.search).toMatchObject({ f: ['app.release_stage:eq:production', 'device.os_name:eq:iOS'] })
  })

  it('offers the first page, not a previous one, on a shared link to a later page', async () => {
    mockApi(pagedValues)
    renderApp('/projects/p1/pivots/device.os_name?cursor=c3')
    expect(await screen.findByText('Linux', {}, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'First page' })).toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Previous page' })).not.toBeInTheDocument()
  })

  it('leads from a page link that is no longer valid back to the first page', async () => {
    mockApi(pagedValues)
    const { router } = renderApp('/projects/p1/pivots/device.os_name?cursor=stale')
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 })
    expect(within(alert).getByText('cursor: was not issued for this list')).toBeInTheDocument()
    await userEvent.click(within(alert).getByRole('link', { name: 'First page' }))
    expect(await screen.findByText('iOS')).toBeInTheDocument()
    expect(router.state.location.search).not.toHaveProperty('cursor')
  })

  it('says when the field has no pivot', async () => {
    mockApi(base)
    renderApp('/projects/p1/pivots/not.a.field')
    expect(await screen.findByRole('heading', { name: 'Nothing to show' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByText('not.a.field')).toBeInTheDocument()
  })
})

describe('pivot page of an error', { timeout: 20_000 }, () => {
  const userPath = '/api/projects/p1/errors/e1/pivots/user.id/values'
  const routes = {
    'GET /api/projects/p1': project({ name: 'Storefront Web' }),
    'GET /api/projects/p1/errors/e1': errorGroup({ error_class: 'CheckoutError', message: '<img src=x onerror=alert(1)>' }),
    'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
    'GET /api/projects/p1/event_fields': [],
    'GET /api/organizations/org1/collaborators': [],
    'GET /api/projects/p1/errors/e1/trend': [],
    'GET /api/projects/p1/errors/e1/latest_event': json({ errors: ['no events'] }, { status: 404 }),
    'GET /api/projects/p1/errors/e1/events': [],
    'GET /api/projects/p1/errors/e1/status_changes': [],
    // The project's values: the page must never show these.
    'GET /api/projects/p1/pivots/user.id/values': [value('everyone', 2049, 1)],
    [`GET ${userPath}`]: (request: MockRequest) => {
      const next = `http://errata.test${userPath}?per_page=50&cursor=c2`
      switch (request.url.searchParams.get('cursor')) {
        case null:
          return json([value('u-ada', 3, 0.75, { 'user.name': 'Ada Lovelace' })], {
            headers: { 'X-Total-Count': '2', Link: `<${next}>; rel="next"` },
          })
        case 'c2':
          return json([value('u-grace', 1, 0.25)], { headers: { 'X-Total-Count': '2' } })
        default:
          return json({ errors: ['cursor: was not issued for this list'] }, { status: 400 })
      }
    },
  }

  it('lists the error’s values with the filters, says which error they are about, and pages within it', async () => {
    const { requests } = mockApi(routes)
    const { router } = renderApp('/projects/p1/errors/e1/pivots/user.id?f=app.release_stage:eq:production')
    expect(await screen.findByRole('heading', { level: 1, name: 'User id values of CheckoutError' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByText(/Only the events of the error/)).toHaveTextContent(
      'Only the events of the error CheckoutError <img src=x onerror=alert(1)> in Storefront Web · 2 values',
    )
    expect(document.querySelector('img[src=x]')).toBeNull()
    expect(screen.getByRole('link', { name: 'Back to the error' })).toHaveAttribute(
      'href',
      '/projects/p1/errors/e1?pivot=user.id&f=app.release_stage:eq:production',
    )
    expect(within(screen.getByRole('list', { name: 'User id values' })).getByText('Ada Lovelace')).toBeInTheDocument()
    expect(screen.queryByText('everyone')).not.toBeInTheDocument()
    const first = requests.find((r) => r.url.pathname === userPath)
    expect(first?.url.searchParams.getAll('filters[app.release_stage][][value]')).toEqual(['production'])
    expect(first?.url.searchParams.get('per_page')).toBe('50')
    expect(requests.some((r) => r.url.pathname === '/api/projects/p1/pivots/user.id/values')).toBe(false)

    await userEvent.click(screen.getByRole('link', { name: /Next page/ }))
    expect(await screen.findByText('u-grace')).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/projects/p1/errors/e1/pivots/user.id')
    expect(router.state.location.search).toMatchObject({ cursor: 'c2', f: 'app.release_stage:eq:production' })
    await userEvent.click(screen.getByRole('link', { name: 'Previous page' }))
    expect(await screen.findByText('Ada Lovelace')).toBeInTheDocument()
    expect(router.state.location.search).not.toHaveProperty('cursor')

    await userEvent.click(screen.getByRole('link', { name: 'Back to the error' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e1'))
    expect(router.state.location.search).toMatchObject({ f: 'app.release_stage:eq:production', pivot: 'user.id' })
  })

  it('has no default status filter, and says so when the error has no values', async () => {
    const { requests } = mockApi({ ...routes, [`GET ${userPath}`]: json([], { headers: { 'X-Total-Count': '0' } }) })
    renderApp('/projects/p1/errors/e1/pivots/user.id')
    expect(await screen.findByText('No User id values', {}, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByText(/None of this error’s events/)).toBeInTheDocument()
    const request = requests.find((r) => r.url.pathname === userPath)
    expect([...request!.url.searchParams.keys()].filter((key) => key.startsWith('filters'))).toEqual([])
  })

  it('leads from a page link that is no longer valid back to the error’s first page', async () => {
    mockApi(routes)
    const { router } = renderApp('/projects/p1/errors/e1/pivots/user.id?cursor=stale')
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 })
    expect(alert).toHaveTextContent('cursor: was not issued for this list')
    await userEvent.click(within(alert).getByRole('link', { name: 'First page' }))
    expect(await screen.findByText('Ada Lovelace')).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/projects/p1/errors/e1/pivots/user.id')
    expect(router.state.location.search).not.toHaveProperty('cursor')
  })

  it('says when the error does not exist', async () => {
    mockApi({ ...routes, 'GET /api/projects/p1/errors/e1': json({ errors: ['not found'] }, { status: 404 }) })
    renderApp('/projects/p1/errors/e1/pivots/user.id')
    expect(await screen.findByRole('heading', { name: 'Nothing to show' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(screen.getByText(/No error with id/)).toHaveTextContent('No error with id e1 exists in this project')
  })

  it('opens from the error page’s “See all values”', async () => {
    mockApi({ ...routes, 'GET /api/projects/p1/errors/e1/pivots/app.release_stage/values': [value('production', 3, 1)] })
    const { router } = renderApp('/projects/p1/errors/e1?pivot=user.id')
    await userEvent.click(await screen.findByRole('link', { name: 'See all values of User id for this error' }, { timeout: 10_000 }))
    expect(await screen.findByRole('heading', { level: 1, name: 'User id values of CheckoutError' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/projects/p1/errors/e1/pivots/user.id')
  })
})
