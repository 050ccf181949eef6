import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { errorGroup, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { nextSort } from './sort-header.tsx'
import { statusTabOf, withStatusTab } from './status-tabs.tsx'

describe('status tabs', () => {
  it('reads the tab from the status filter and writes it back, keeping the other filters', () => {
    expect(statusTabOf({ 'error.status': [{ type: 'eq', value: 'fixed' }] })).toBe('fixed')
    expect(statusTabOf({})).toBe('all')
    expect(statusTabOf({ 'error.status': [{ type: 'ne', value: 'fixed' }] })).toBeNull()
    const release = { 'app.release_stage': [{ type: 'eq' as const, value: 'production' }] }
    expect(withStatusTab({ 'error.status': [{ type: 'eq', value: 'open' }], ...release }, 'ignored')).toEqual({
      'error.status': [{ type: 'eq', value: 'ignored' }],
      ...release,
    })
    expect(withStatusTab({ 'error.status': [{ type: 'eq', value: 'open' }], ...release }, 'all')).toEqual(release)
  })

  it('sorts by a column header: another column starts descending, the same one turns round', () => {
    expect(nextSort({ sort: 'last_seen', direction: 'desc' }, 'events')).toEqual({ sort: 'events', direction: 'desc' })
    expect(nextSort({ sort: 'events', direction: 'desc' }, 'events')).toEqual({ sort: 'events', direction: 'asc' })
    expect(nextSort({ sort: 'events', direction: 'asc' }, 'events')).toEqual({ sort: 'events', direction: 'desc' })
  })

  it('shows each status with its count from the server, and a tab changes the URL', async () => {
    const { requests } = mockApi({
      'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
      'GET /api/projects/p1': project(),
      'GET /api/projects/p1/collaborators': [],
      'GET /api/projects/p1/errors': () => json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
      'GET /api/projects/p1/trend': [],
      'GET /api/projects/p1/error_status_counts': { counts: { open: 1, fixed: 40, snoozed: 2, ignored: 5 }, total: 48 },
    })
    const { router } = renderApp('/projects/p1/errors')
    const tabs = await screen.findByRole('navigation', { name: 'Error status' }, { timeout: 5000 })
    await waitFor(() => expect(within(tabs).getByRole('link', { name: 'Fixed 40' })).toBeInTheDocument())
    expect(within(tabs).getByRole('link', { name: 'Open 1' })).toHaveAttribute('aria-current', 'page')
    expect(within(tabs).getByRole('link', { name: 'All 48' })).toBeInTheDocument()
    await userEvent.click(within(tabs).getByRole('link', { name: 'Ignored 5' }))
    const f = () => new URLSearchParams(router.state.location.searchStr).getAll('f')
    await waitFor(() => expect(f()).toEqual(['error.status:eq:ignored']))
    // The counts leave the status out, so changing tab does not ask for them again.
    expect(requests.filter((r) => r.url.pathname.endsWith('/error_status_counts'))).toHaveLength(1)
    await userEvent.click(within(tabs).getByRole('link', { name: 'All 48' }))
    await waitFor(() => expect(within(tabs).getByRole('link', { name: 'All 48' })).toHaveAttribute('aria-current', 'page'))
    expect(f()).not.toContain('error.status:eq:ignored')
  })
})
