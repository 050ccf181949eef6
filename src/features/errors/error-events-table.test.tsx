import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { errorPageRoutes, event } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const eventsPath = 'http://errata.test/api/projects/p1/errors/e1/events?per_page=30'
const page = (context: string, next?: string) =>
  json([event({ id: `ev-${context}`, context })], {
    headers: { 'X-Total-Count': '3', ...(next ? { Link: `<${eventsPath}&cursor=${next}>; rel="next"` } : {}) },
  })

/**
 * The error's events over three pages: "checkout" (newest), then "cart" (cursor c2), then "search"
 * (c3); the older pages take `delayMs` to answer.
 */
function pagedEventsApi({ delayMs = 0 }: { delayMs?: number } = {}) {
  return mockApi({
    ...errorPageRoutes(),
    'GET /api/projects/p1/errors/e1/pivots/app.version/values': [],
    'GET /api/projects/p1/errors/e1/events': async (request: MockRequest) => {
      const cursor = request.url.searchParams.get('cursor')
      if (cursor) await new Promise((resolve) => setTimeout(resolve, delayMs))
      switch (cursor) {
        case null:
          return page('checkout', 'c2')
        case 'c2':
          return page('cart', 'c3')
        default:
          return page('search')
      }
    },
  })
}

const eventsCard = () => screen.getByRole('navigation', { name: 'Events pages' })

configure({ asyncUtilTimeout: 5_000 })
describe('error events pages', { timeout: 20_000 }, () => {
  it('goes to older pages and back to newer ones along the way it came', async () => {
    pagedEventsApi()
    const { router } = renderApp('/projects/p1/errors/e1')
    expect(await screen.findByRole('cell', { name: 'checkout' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(within(eventsCard()).queryByRole('link', { name: /Newer events|Newest/ })).not.toBeInTheDocument()
    // How far back the events go: the project's retention.
    expect(await screen.findByText('Events are kept for 90 days after they arrive; older ones are deleted.')).toBeInTheDocument()

    await userEvent.click(within(eventsCard()).getByRole('link', { name: /Older events/ }))
    expect(await screen.findByRole('cell', { name: 'cart' })).toBeInTheDocument()
    // One step back is the newest page: a single link there.
    expect(within(eventsCard()).getByRole('link', { name: 'Newer events' })).toBeInTheDocument()
    expect(within(eventsCard()).queryByRole('link', { name: 'Newest' })).not.toBeInTheDocument()

    await userEvent.click(within(eventsCard()).getByRole('link', { name: /Older events/ }))
    expect(await screen.findByRole('cell', { name: 'search' })).toBeInTheDocument()
    expect(within(eventsCard()).getByRole('link', { name: 'Newest' })).toBeInTheDocument()
    await userEvent.click(within(eventsCard()).getByRole('link', { name: 'Newer events' }))
    expect(await screen.findByRole('cell', { name: 'cart' })).toBeInTheDocument()
    expect(router.state.location.search).toMatchObject({ cursor: 'c2' })
    await userEvent.click(within(eventsCard()).getByRole('link', { name: 'Newer events' }))
    expect(await screen.findByRole('cell', { name: 'checkout' })).toBeInTheDocument()
    await waitFor(() => expect(router.state.location.search).not.toHaveProperty('cursor'))
  })

  it('pages without losing the other search parameters, the scroll position or the focus', async () => {
    // Slow enough that the page renders before its events arrive, as over a network.
    pagedEventsApi({ delayMs: 300 })
    const scrollTo = vi.spyOn(window, 'scrollTo')
    const { router } = renderApp('/projects/p1/errors/e1?f=event.since:eq:7d&f=app.release_stage:eq:production&pivot=app.version&resolution=1d')
    await screen.findByRole('cell', { name: 'checkout' }, { timeout: 10_000 })
    const others = { f: ['event.since:eq:7d', 'app.release_stage:eq:production'], pivot: 'app.version', resolution: '1d' }
    // The router resets the scroll with window.scrollTo({ top: 0, left: 0 }).
    const scrolledToTop = () => scrollTo.mock.calls.some((args: unknown[]) => (args[0] as ScrollToOptions | undefined)?.top === 0)
    scrollTo.mockClear()

    await userEvent.click(within(eventsCard()).getByRole('link', { name: /Older events/ }))
    expect(await screen.findByRole('cell', { name: 'cart' })).toBeInTheDocument()
    expect(router.state.location.search).toEqual({ ...others, cursor: 'c2' })
    await waitFor(() => expect(within(eventsCard()).getByRole('link', { name: /Older events/ })).toHaveFocus())

    // The last page has no older one: the focus goes to the events it shows.
    await userEvent.click(within(eventsCard()).getByRole('link', { name: /Older events/ }))
    expect(await screen.findByRole('cell', { name: 'search' })).toBeInTheDocument()
    expect(router.state.location.search).toEqual({ ...others, cursor: 'c3' })
    await waitFor(() => expect(screen.getByRole('table')).toHaveFocus())

    await userEvent.click(within(eventsCard()).getByRole('link', { name: 'Newer events' }))
    expect(await screen.findByRole('cell', { name: 'cart' })).toBeInTheDocument()
    expect(router.state.location.search).toEqual({ ...others, cursor: 'c2' })
    await waitFor(() => expect(within(eventsCard()).getByRole('link', { name: 'Newer events' })).toHaveFocus())

    await userEvent.click(within(eventsCard()).getByRole('link', { name: /Older events/ }))
    await screen.findByRole('cell', { name: 'search' })
    await userEvent.click(within(eventsCard()).getByRole('link', { name: 'Newest' }))
    expect(await screen.findByRole('cell', { name: 'checkout' })).toBeInTheDocument()
    await waitFor(() => expect(router.state.location.search).toEqual(others))
    await waitFor(() => expect(screen.getByRole('table')).toHaveFocus())
    expect(scrolledToTop()).toBe(false)
  })

  it('offers the newest page on a shared link to an older one', async () => {
    pagedEventsApi()
    renderApp('/projects/p1/errors/e1?cursor=c3')
    expect(await screen.findByRole('cell', { name: 'search' }, { timeout: 10_000 })).toBeInTheDocument()
    expect(within(eventsCard()).getByRole('link', { name: 'Newest' })).toBeInTheDocument()
    expect(within(eventsCard()).queryByRole('link', { name: 'Newer events' })).not.toBeInTheDocument()
  })

  it('names each event link by its exact time and user, and shows the exact time', async () => {
    pagedEventsApi()
    renderApp('/projects/p1/errors/e1')
    await screen.findByRole('cell', { name: 'checkout' }, { timeout: 10_000 })
    const table = screen.getByRole('table')
    const link = within(table).getByRole('link', { name: /^[^,]+,\s*Nov 22, 2026, \d\d:00:00 .+, Ada Lovelace$/ })
    expect(link).toHaveAttribute('href', '/projects/p1/errors/e1/events/ev-checkout')
    expect(within(link).getByText(/^Nov 22, 2026, \d\d:00:00/)).toBeVisible()
  })
})
