import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import type { ErrorGroup } from '../../../contract/errors.ts'
import type { ErrorsHead } from '../../api/errors.ts'
import { errorGroup, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { compareErrorsHead } from './use-list-updates.ts'

/** A project's errors that the test adds to, as notifiers would; `per_page=1` is the list's poll. */
function growingListApi() {
  let current: ErrorGroup[] = [
    errorGroup({ id: 'e1', error_class: 'FirstError' }),
    errorGroup({ id: 'e2', error_class: 'SecondError' }),
  ]
  const api = mockApi({
    'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
    'GET /api/projects/p1': project({ open_error_count: 2 }),
    'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
    'GET /api/projects/p1/collaborators': [],
    // The project's settings page, which one test opens in between.
    'GET /api/organizations/org1/collaborators': [],
    'GET /api/projects/p1/errors': (request) => {
      const perPage = Number(request.url.searchParams.get('per_page'))
      const statuses = request.url.searchParams.getAll('filters[error.status][][value]')
      const matching = current.filter((e) => statuses.length === 0 || statuses.includes(e.status))
      return json(matching.slice(0, perPage), { headers: { 'X-Total-Count': String(matching.length) } })
    },
    // Only fixes, which is all these tests do.
    'PATCH /api/projects/p1/errors': (request) => {
      const ids = (request.url.searchParams.get('error_ids') ?? '').split(',')
      current = current.map((e) => (ids.includes(e.id) ? { ...e, status: 'fixed' as const } : e))
      return json(ids.map((id) => ({ id, status: 'updated', error: current.find((e) => e.id === id), errors: [] })))
    },
  })
  // Not the chart's request for the oldest error (sort=first_seen): the list's pages and poll.
  const listRequests = () =>
    api.requests.filter((r) => r.method === 'GET' && r.url.pathname === '/api/projects/p1/errors' && r.url.searchParams.get('sort') !== 'first_seen')
  return {
    ...api,
    /** New errors arrive, newest first as the default sort lists them. */
    arrive: (...classes: string[]) => {
      current = [...classes.map((name, i) => errorGroup({ id: `new${current.length + i}`, error_class: name })), ...current]
    },
    /** Requests for the list's pages, not its poll. */
    pageRequests: () => listRequests().filter((r) => r.url.searchParams.get('per_page') !== '1'),
    polls: () => listRequests().filter((r) => r.url.searchParams.get('per_page') === '1'),
  }
}

const list = () => screen.findByRole('list', { name: 'Errors' }, { timeout: 10_000 })

/** The page as if scrolled down the list. */
function scrollDown() {
  Object.defineProperty(window, 'scrollY', { value: 2_000, configurable: true })
}

afterEach(() => {
  Object.defineProperty(window, 'scrollY', { value: 0, configurable: true })
})

describe('an open errors list', { timeout: 20_000 }, () => {
  it('polls one row and the total every 30 s while the tab is visible, without a request on opening', async () => {
    // The page's age counts from when it was read; a still clock keeps a slow render on a loaded
    // machine from making the page just read look like one from the cache.
    vi.useFakeTimers({ toFake: ['Date'] })
    onTestFinished(() => void vi.useRealTimers())
    const api = growingListApi()
    const { queryClient } = renderApp('/projects/p1/errors')
    await list()
    const [poll] = queryClient.getQueryCache().findAll({ queryKey: ['errors', 'head', 'p1'] })
    expect(poll?.options).toMatchObject({ refetchInterval: 30_000, refetchIntervalInBackground: false })
    expect(api.polls()).toHaveLength(0)
    await queryClient.refetchQueries({ queryKey: ['errors', 'head'] })
    expect(api.polls()).toHaveLength(1)
    expect(api.polls()[0]!.url.searchParams.get('sort')).toBe('last_seen')
    expect(api.polls()[0]!.url.searchParams.getAll('filters[error.status][][value]')).toEqual(['open'])
    // Nothing new: nothing to say.
    expect(screen.queryByRole('button', { name: /new error/ })).not.toBeInTheDocument()
  })

  it('opened again on a first page from the cache, checks the head at once and shows what arrived meanwhile', async () => {
    const api = growingListApi()
    const { queryClient, router } = renderApp('/projects/p1/errors')
    await list()
    await router.navigate({ to: '/projects/$projectId/settings', params: { projectId: 'p1' } })
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Errors' })).not.toBeInTheDocument())
    // The first page was read a while ago (the list's own staleness has not run out).
    for (const [key, data] of queryClient.getQueriesData<{ pages: { fetchedAt: number }[] }>({ queryKey: ['errors', 'list', 'p1'] })) {
      if (data) queryClient.setQueryData(key, { ...data, pages: data.pages.map((page) => ({ ...page, fetchedAt: Date.now() - 10_000 })) })
    }
    api.arrive('ThirdError')
    await router.navigate({ to: '/projects/$projectId/errors', params: { projectId: 'p1' } })
    await waitFor(() => expect(api.polls()).toHaveLength(1))
    expect(await within(await list()).findByText('ThirdError')).toBeInTheDocument()
  })

  it('scrolled down, says how many new errors arrived and shows them at the top on request', async () => {
    const api = growingListApi()
    const { queryClient } = renderApp('/projects/p1/errors')
    await list()
    scrollDown()
    const pagesBefore = api.pageRequests().length
    api.arrive('ThirdError', 'FourthError', 'FifthError')
    await queryClient.refetchQueries({ queryKey: ['errors', 'head'] })

    const show = await screen.findByRole('button', { name: 'Show 3 new errors' })
    expect(show.closest('[role="status"]')).toHaveTextContent(/^3 new errors\s*·\s*Show$/)
    // The list stays as it was until asked.
    expect(api.pageRequests()).toHaveLength(pagesBefore)
    expect(screen.queryByRole('link', { name: /^ThirdError:/ })).not.toBeInTheDocument()

    await userEvent.click(show)
    expect(await screen.findByRole('link', { name: /^ThirdError:/ })).toBeInTheDocument()
    expect(api.pageRequests().at(-1)!.url.searchParams.has('cursor')).toBe(false)
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Errors' })).getAllByRole('link')[0]).toHaveFocus())
    expect(screen.queryByRole('button', { name: /new error/ })).not.toBeInTheDocument()
  })

  it('keeps a selection as it is and offers the new errors instead', async () => {
    const api = growingListApi()
    const { queryClient } = renderApp('/projects/p1/errors')
    await list()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select SecondError' }))
    const pagesBefore = api.pageRequests().length
    api.arrive('ThirdError')
    await queryClient.refetchQueries({ queryKey: ['errors', 'head'] })

    expect(await screen.findByRole('button', { name: 'Show 1 new error' })).toBeInTheDocument()
    expect(api.pageRequests()).toHaveLength(pagesBefore)
    expect(screen.getByRole('checkbox', { name: 'Select SecondError' })).toBeChecked()
  })

  it('at the top, with nothing selected, just shows what arrived', async () => {
    const api = growingListApi()
    const { queryClient } = renderApp('/projects/p1/errors')
    await list()
    const pagesBefore = api.pageRequests().length
    api.arrive('ThirdError')
    await queryClient.refetchQueries({ queryKey: ['errors', 'head'] })

    expect(await screen.findByRole('link', { name: /^ThirdError:/ })).toBeInTheDocument()
    expect(api.pageRequests()).toHaveLength(pagesBefore + 1)
    expect(screen.queryByRole('button', { name: /new error/ })).not.toBeInTheDocument()
  })

  it('takes errors that triage moved out of the list for no news', async () => {
    const api = growingListApi()
    const { queryClient } = renderApp('/projects/p1/errors')
    await list()
    scrollDown()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select FirstError' }))
    await userEvent.click(within(await screen.findByRole('toolbar', { name: 'Bulk actions' })).getByRole('button', { name: 'Fix' }))
    // Fixed, it leaves the open errors: one left.
    await waitFor(() => expect(screen.queryByRole('link', { name: /^FirstError:/ })).not.toBeInTheDocument())
    await queryClient.refetchQueries({ queryKey: ['errors', 'head'] })
    expect(screen.queryByRole('button', { name: /new error/ })).not.toBeInTheDocument()

    api.arrive('ThirdError')
    await queryClient.refetchQueries({ queryKey: ['errors', 'head'] })
    expect(await screen.findByRole('button', { name: 'Show 1 new error' })).toBeInTheDocument()
  })
})

describe('comparing the list with its head', () => {
  const head = (total: number | null, id = 'e1', events = 5): ErrorsHead => ({
    total,
    first: { id, events, last_seen: '2026-11-22T10:00:00.000Z' },
  })

  it('counts the new errors by the total and notices a changed first row', () => {
    expect(compareErrorsHead(head(10), head(13, 'e9'))).toEqual({ newErrors: 3, changed: true })
    expect(compareErrorsHead(head(10), head(10))).toEqual({ newErrors: 0, changed: false })
    // An error of the first row that happened again: nothing new, but the list is out of date.
    expect(compareErrorsHead(head(10), head(10, 'e1', 6))).toEqual({ newErrors: 0, changed: true })
    // Errors that left the list (fixed elsewhere) are not new ones.
    expect(compareErrorsHead(head(10), head(8))).toEqual({ newErrors: 0, changed: true })
    expect(compareErrorsHead(head(null), head(null, 'e2'))).toEqual({ newErrors: 0, changed: true })
  })
})
