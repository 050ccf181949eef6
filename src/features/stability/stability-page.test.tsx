import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Stability } from '../../../contract/stability.ts'
import { errorGroup, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const baseRoutes = {
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
  'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
}

const stability: Stability = {
  total: { sessions: 1250, crashed_sessions: 10, crash_free_rate: 0.992, first_seen: '2026-11-18T10:00:00.000Z' },
  releases: [
    {
      release_stage: 'production',
      app_version: '2.0.0',
      sessions: 1000,
      crashed_sessions: 2,
      crash_free_rate: 0.998,
      first_seen: '2026-11-20T10:00:00.000Z',
      last_seen: '2026-11-22T10:00:00.000Z',
    },
    {
      release_stage: 'staging',
      app_version: '',
      sessions: 250,
      crashed_sessions: 8,
      crash_free_rate: 0.968,
      first_seen: '2026-11-19T10:00:00.000Z',
      last_seen: '2026-11-21T10:00:00.000Z',
    },
    {
      release_stage: 'production',
      app_version: '1.9.0',
      sessions: 0,
      crashed_sessions: 3,
      crash_free_rate: null,
      first_seen: '2026-11-18T10:00:00.000Z',
      last_seen: '2026-11-18T10:00:00.000Z',
    },
  ],
}

const hourBucket = (hour: number, sessions: number, crashed: number) => ({
  from: new Date(Date.UTC(2026, 10, 20, hour)).toISOString(),
  to: new Date(Date.UTC(2026, 10, 20, hour + 1)).toISOString(),
  sessions,
  crashed_sessions: crashed,
  crash_free_rate: sessions === 0 ? null : Math.max(0, 1 - crashed / sessions),
})

describe('stability page', () => {
  it('charts the crash-free rate over the period, from its first session, with the numbers in a table', async () => {
    const { requests } = mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/stability': stability,
      'GET /api/projects/p1/stability/trend': [hourBucket(0, 1000, 2), hourBucket(1, 0, 0), hourBucket(2, 250, 8)],
    })
    renderApp('/projects/p1/stability')
    const chart = await screen.findByRole('figure', { name: /^Crash-free sessions per (hour|day|6 hours), all time \(first session Nov 18, \d\d:00\)$/ })
    const rows = within(chart).getAllByRole('row')
    expect(rows.map((row) => [...row.querySelectorAll('td')].slice(1).map((cell) => cell.textContent))).toEqual([
      [],
      ['1,000', '2', '99.8%'],
      ['0', '0', '—'],
      ['250', '8', '96.8%'],
    ])
    // All time starts at the first session (total.first_seen), not at the year 1 the summary asks with.
    const asked = requests.find((r) => r.url.pathname === '/api/projects/p1/stability/trend')!
    expect(asked.url.searchParams.get('filters[event.since][][value]')).toBe('2026-11-18T10:00:00.000Z')
    expect(screen.getByRole('region', { name: /^Over time/ })).toBeInTheDocument()
  })

  it('shows the chart’s failure with a retry without losing the page', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/stability': stability,
      'GET /api/projects/p1/stability/trend': json({ errors: ['the database is unavailable or busy; retry shortly'] }, { status: 503 }),
    })
    renderApp('/projects/p1/stability')
    const region = await screen.findByRole('region', { name: /^Over time/ })
    expect(await within(region).findByText('Could not load crash-free sessions over time', {}, { timeout: 10_000 })).toBeInTheDocument()
    expect(within(region).getByRole('button', { name: 'Retry' })).toBeInTheDocument()
    expect(screen.getByText('99.2%')).toBeInTheDocument()
  })

  it('shows the crash-free sessions of the period, the band named beside the colour, and leads to the releases', async () => {
    const { requests } = mockApi({ ...baseRoutes, 'GET /api/projects/p1/stability': stability })
    renderApp('/projects/p1/stability')

    expect(await screen.findByRole('heading', { level: 1, name: 'checkout-api: stability' })).toBeInTheDocument()
    const summary = screen.getByRole('region', { name: /Crash-free sessions/ })
    expect(within(summary).getByText('99.2%')).toBeInTheDocument()
    expect(within(summary).getByText('Fair')).toBeInTheDocument()
    expect(within(summary).getByText('10 of 1,250 sessions crashed')).toBeInTheDocument()
    expect(within(summary).getByRole('heading', { name: 'Crash-free sessions · All time' })).toBeInTheDocument()
    expect(screen.getByLabelText('Time range')).toHaveValue('all')

    // Per release numbers are the Releases page's: one table of releases, not two.
    expect(screen.queryByRole('table')).not.toBeInTheDocument()
    const byRelease = screen.getByRole('region', { name: 'By release' })
    expect(byRelease).toHaveTextContent('3 releases in this period')
    expect(within(byRelease).getByRole('link', { name: 'See releases' })).toHaveAttribute('href', '/projects/p1/releases')
    // The default period is the errors page's: all time, said outright to the API (whose own default is 30 days).
    const asked = requests.find((r) => r.url.pathname === '/api/projects/p1/stability')!
    expect(asked.url.searchParams.get('filters[event.since][][value]')).toBe('0001-01-01T00:00:00Z')
  })

  it('keeps the time range in the URL, and all time as no range at all', async () => {
    const { requests } = mockApi({ ...baseRoutes, 'GET /api/projects/p1/stability': stability })
    const { router } = renderApp('/projects/p1/stability?f=event.since:eq:7d')
    const select = await screen.findByLabelText('Time range')
    expect(select).toHaveValue('7d')
    expect(screen.getByRole('heading', { name: 'Crash-free sessions · Last 7 days' })).toBeInTheDocument()

    await userEvent.selectOptions(select, 'all')
    expect(await screen.findByRole('heading', { name: 'Crash-free sessions · All time' })).toBeInTheDocument()
    // All time is the default: no `f` in the URL at all.
    expect(router.state.location.href).toBe('/projects/p1/stability')
    const last = requests.filter((r) => r.url.pathname === '/api/projects/p1/stability').at(-1)!
    expect(last.url.searchParams.get('filters[event.since][][value]')).toBe('0001-01-01T00:00:00Z')
  })

  it('says how to turn session tracking on when no session was counted', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/stability': { total: { sessions: 0, crashed_sessions: 0, crash_free_rate: null, first_seen: null }, releases: [] },
    })
    renderApp('/projects/p1/stability')
    expect(
      await screen.findByRole('heading', { name: 'No sessions yet — enable session tracking in your notifier: autoTrackSessions' }),
    ).toBeInTheDocument()
    expect(screen.getByText(/autoTrackSessions: true/)).toHaveTextContent("apiKey: '0123456789abcdef0123456789abcdef'")
    expect(screen.getByRole('button', { name: 'Copy session tracking snippet' })).toBeInTheDocument()
    expect(screen.queryByRole('table')).not.toBeInTheDocument()
  })

  it('shows what failed with a retry, and a not-found page for a project it cannot see', async () => {
    mockApi({ ...baseRoutes, 'GET /api/projects/p1/stability': json({ errors: ['the database is unavailable or busy; retry shortly'] }, { status: 503 }) })
    renderApp('/projects/p1/stability')
    const alert = await screen.findByRole('alert')
    expect(within(alert).getByText('Could not load this project’s stability')).toBeInTheDocument()
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeInTheDocument()

    mockApi({ ...baseRoutes, 'GET /api/projects/p2': json({ errors: ['Project not found'] }, { status: 404 }) })
    renderApp('/projects/p2/stability')
    expect(await screen.findByRole('heading', { level: 1, name: 'Project not found' })).toBeInTheDocument()
  })

  it('is linked from the project’s errors page', async () => {
    mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
      'GET /api/projects/p1/stability': stability,
    })
    renderApp('/projects/p1/errors')
    const nav = await screen.findByRole('navigation', { name: 'Project' })
    expect(within(nav).getByRole('link', { name: 'Errors' })).toHaveAttribute('aria-current', 'page')
    await userEvent.click(within(nav).getByRole('link', { name: 'Stability' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'checkout-api: stability' })).toBeInTheDocument()
    expect(within(screen.getByRole('navigation', { name: 'Project' })).getByRole('link', { name: 'Stability' })).toHaveAttribute('aria-current', 'page')
  })
})
