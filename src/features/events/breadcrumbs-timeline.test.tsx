import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Breadcrumb } from '../../../contract/events.ts'
import { BreadcrumbsTimeline } from './breadcrumbs-timeline.tsx'

const crumb = (name: string, type: string, meta_data: Record<string, unknown> = {}): Breadcrumb => ({
  timestamp: '2026-11-22T09:59:58.100Z',
  name,
  type,
  meta_data,
})

const EVENT_TIME = '2026-11-22T10:00:00.000Z'

const timeline = [
  crumb('Page loaded', 'navigation', { to: '/cart' }),
  crumb('GET /api/cart', 'request', { status: 200 }),
  crumb('Clicked "Checkout"', 'user'),
  crumb('POST /api/orders', 'request', { status: 500, body: 'card declined' }),
  crumb('Retrying payment', 'log'),
  crumb('GET /api/orders/42', 'request', { status: 404 }),
]

const shownNames = () =>
  within(screen.getByRole('list', { name: 'Breadcrumbs, oldest first' }))
    .getAllByRole('listitem')
    .map((item) => item.querySelector('.font-medium')?.textContent)

describe('BreadcrumbsTimeline', () => {
  it('narrows a long timeline by type and by text in names and metadata', async () => {
    const user = userEvent.setup()
    render(<BreadcrumbsTimeline breadcrumbs={timeline} eventTime={EVENT_TIME} />)
    const types = screen.getByRole('group', { name: 'Breadcrumb types' })
    expect(within(types).getByRole('button', { name: 'all (6)' })).toHaveAttribute('aria-pressed', 'true')

    await user.click(within(types).getByRole('button', { name: 'request (3)' }))
    expect(shownNames()).toEqual(['GET /api/cart', 'POST /api/orders', 'GET /api/orders/42'])
    expect(screen.getByRole('status')).toHaveTextContent('3 of 6 breadcrumbs')

    // Text matches metadata too ("card declined" is only in the POST's body), within the type.
    await user.type(screen.getByRole('searchbox', { name: 'Search breadcrumbs' }), 'DECLINED')
    expect(shownNames()).toEqual(['POST /api/orders'])

    await user.click(within(types).getByRole('button', { name: 'log (1)' }))
    expect(screen.queryByRole('list', { name: 'Breadcrumbs, oldest first' })).not.toBeInTheDocument()
    expect(screen.getByText('No breadcrumbs match.')).toBeInTheDocument()

    await user.clear(screen.getByRole('searchbox', { name: 'Search breadcrumbs' }))
    await user.click(within(types).getByRole('button', { name: 'all (6)' }))
    expect(shownNames()).toHaveLength(6)
    expect(screen.queryByRole('status')).not.toBeInTheDocument()
  })

  it('searches every breadcrumb, also those before the last 25', async () => {
    const user = userEvent.setup()
    const many = [crumb('Very first step', 'log'), ...Array.from({ length: 40 }, (_, i) => crumb(`Step ${i}`, 'log'))]
    render(<BreadcrumbsTimeline breadcrumbs={many} eventTime={EVENT_TIME} />)
    expect(screen.getByRole('button', { name: 'Show 16 earlier breadcrumbs' })).toBeInTheDocument()
    await user.type(screen.getByRole('searchbox', { name: 'Search breadcrumbs' }), 'very first')
    expect(shownNames()).toEqual(['Very first step'])
    // One type only: no type buttons.
    expect(screen.queryByRole('group', { name: 'Breadcrumb types' })).not.toBeInTheDocument()
  })

  it('keeps a short timeline plain', () => {
    render(<BreadcrumbsTimeline breadcrumbs={timeline.slice(0, 3)} eventTime={EVENT_TIME} />)
    expect(screen.queryByRole('searchbox')).not.toBeInTheDocument()
    expect(shownNames()).toHaveLength(3)
  })

  it('shows the date beside the time of a breadcrumb from an earlier day than the event', () => {
    const earlier = { ...crumb('App started', 'state'), timestamp: '2026-11-19T09:59:58.100Z' }
    render(<BreadcrumbsTimeline breadcrumbs={[earlier, crumb('Clicked "Checkout"', 'user')]} eventTime={EVENT_TIME} />)
    const times = within(screen.getByRole('list', { name: 'Breadcrumbs, oldest first' })).getAllByText((_, node) => node?.tagName === 'TIME')
    expect(times.map((time) => time.textContent)).toEqual([expect.stringMatching(/^Nov 19, 2026, \d\d:59:58\.100$/), expect.stringMatching(/^\d\d:59:58\.100$/)])
  })
})
