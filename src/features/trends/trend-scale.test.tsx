import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { errorGroup, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

// A burst of 12,000 events beside a trickle of 3.
const buckets = [
  { events_count: 3, from: '2026-11-20T10:00:00.000Z', to: '2026-11-20T16:00:00.000Z' },
  { events_count: 12_000, from: '2026-11-20T16:00:00.000Z', to: '2026-11-20T22:00:00.000Z' },
  { events_count: 2, from: '2026-11-20T22:00:00.000Z', to: '2026-11-21T04:00:00.000Z' },
]

const routes = {
  'GET /api/projects/p1': project({ open_error_count: 1 }),
  'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
  'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
  'GET /api/organizations/org1/collaborators': [],
  'GET /api/projects/p1/event_fields': [],
  'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
  'GET /api/projects/p1/errors/e1': errorGroup(),
  'GET /api/projects/p1/trend': buckets,
  'GET /api/projects/p1/errors/e1/trend': buckets,
}

const firstScreen = { timeout: 10_000 }
const yTicks = (figure: HTMLElement) => [...figure.querySelectorAll('.recharts-yAxis-tick-labels text')].map((t) => t.textContent)

describe('the trend’s count scale', () => {
  it('switches the errors page’s trend to a labelled log scale, kept in the URL', async () => {
    mockApi(routes)
    // The errors page keeps its trend folded until shown once (a preference in local storage).
    window.localStorage.setItem('errata.errors-trend-collapsed', 'false')
    const { router } = renderApp('/projects/p1/errors?f=event.since:eq:7d')
    const linear = await screen.findByRole('figure', { name: /^Events per hour, last 7 days: 12,005 events$/ }, firstScreen)
    expect(yTicks(linear)).toEqual(['0', '4K', '8K', '12K'])

    const scale = screen.getByRole('combobox', { name: 'Scale' })
    expect(scale).toHaveValue('linear')
    await userEvent.selectOptions(scale, 'log')
    await waitFor(() => expect(router.state.location.search).toMatchObject({ scale: 'log' }))
    const log = await screen.findByRole('figure', { name: /12,005 events \(log scale\)$/ })
    // The list's chart is short: three labels fit it without overlapping.
    expect(yTicks(log)).toEqual(['0', '100', '100K'])

    await userEvent.selectOptions(scale, 'linear')
    // Linear is the default: no parameter at all.
    await waitFor(() => expect(router.state.location.search).not.toHaveProperty('scale'))
  })

  it('reads the log scale from the error page’s URL', async () => {
    mockApi(routes)
    renderApp('/projects/p1/errors/e1?scale=log&f=event.since:eq:7d')
    const chart = await screen.findByRole('figure', { name: /\(log scale\)$/ }, firstScreen)
    expect(screen.getByRole('combobox', { name: 'Scale' })).toHaveValue('log')
    expect(yTicks(chart)).toEqual(['0', '10', '1K', '100K'])
  })
})
