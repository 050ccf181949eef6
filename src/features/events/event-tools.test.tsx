import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { errorGroup, event, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }
const collaborator = (isAdmin: boolean) => ({
  id: 'u1',
  name: 'Admin',
  email: 'admin@example.com',
  is_admin: isAdmin,
  project_ids: null,
  pending_invitation: false,
  created_at: '2026-01-01T00:00:00.000Z',
})

function eventApi({ admin = true } = {}) {
  let deleted = false
  const api = mockApi({
    'GET /api/user': me,
    'GET /api/projects/p1': project(),
    'GET /api/organizations/org1/collaborators': [collaborator(admin)],
    'GET /api/projects/p1/errors/e1': errorGroup({ events: 12 }),
    'GET /api/projects/p1/events/ev1': () => (deleted ? json({ errors: ['Event not found'] }, { status: 404 }) : json(event())),
    'GET /api/projects/p1/events/ev-older': event({ id: 'ev-older', received_at: '2026-11-22T09:00:00.000Z' }),
    'GET /api/projects/p1/errors/e1/events': (request) => {
      const query = request.url.searchParams
      // Position: three events in later milliseconds; at ev1's own millisecond, one that sorts before it.
      if (query.get('start_time') === '2026-11-22T10:00:00.001Z') return json([event({ id: 'ev-x' })], { headers: { 'X-Total-Count': '3' } })
      if (query.get('start_time') === '2026-11-22T10:00:00.000Z') {
        return json([event({ id: 'ev2' }), event({ id: 'ev1' }), event({ id: 'ev0' })], { headers: { 'X-Total-Count': '3' } })
      }
      return query.get('direction') === 'asc'
        ? json([])
        : json([event({ id: 'ev-older', received_at: '2026-11-22T09:00:00.000Z' })])
    },
    'DELETE /api/projects/p1/events/ev1': () => {
      deleted = true
      return new Response(null, { status: 204 })
    },
  })
  return api
}

describe('event tools', { timeout: 20_000 }, () => {
  it('says which event of how many this is, newest first', async () => {
    eventApi()
    renderApp('/projects/p1/errors/e1/events/ev1')
    const nav = await screen.findByRole('navigation', { name: 'Event navigation' }, { timeout: 5000 })
    // 3 in later milliseconds, ev2 before it in the same one: the fifth of the error's 12.
    expect(await within(nav).findByText('Event 5 of 12')).toBeInTheDocument()
  })

  it('copies the stack trace, shows the raw JSON as text and lets an admin delete the event', async () => {
    const { requests } = eventApi()
    const { router } = renderApp('/projects/p1/errors/e1/events/ev1')
    expect(await screen.findByRole('button', { name: 'Copy stack trace' }, { timeout: 5000 })).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Raw JSON' }))
    const raw = await screen.findByRole('dialog', { name: 'Raw event JSON' })
    expect(within(raw).getByText(/"id": "ev1"/)).toBeInTheDocument()
    expect(within(raw).getByRole('button', { name: 'Download JSON' })).toBeInTheDocument()
    // Copy puts the JSON on the clipboard and says so.
    const writeText = vi.fn(async () => {})
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    await userEvent.click(within(raw).getByRole('button', { name: 'Copy JSON' }))
    expect(await within(raw).findByRole('button', { name: 'Copied: Copy JSON' })).toHaveTextContent('Copied')
    expect(JSON.parse((writeText.mock.calls[0] as unknown as [string])[0])).toMatchObject({ id: 'ev1' })
    await userEvent.click(within(raw).getByRole('button', { name: 'Close' }))

    await userEvent.click(await screen.findByRole('button', { name: 'Delete event' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete this event?' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete event' }))
    await waitFor(() => expect(requests.some((r) => r.method === 'DELETE' && r.url.pathname === '/api/projects/p1/events/ev1')).toBe(true))
    // On to the next older event.
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e1/events/ev-older'))
  })

  it('does not offer Delete to a member who is not an admin', async () => {
    eventApi({ admin: false })
    renderApp('/projects/p1/errors/e1/events/ev1')
    expect(await screen.findByRole('button', { name: 'Raw JSON' }, { timeout: 5000 })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Delete event' })).not.toBeInTheDocument()
  })
})
