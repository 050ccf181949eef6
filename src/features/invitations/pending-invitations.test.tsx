import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { organization, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const user = { id: 'u2', name: 'Invitee', email: 'invitee@example.com', created_at: '2026-01-01T00:00:00Z' }
const invitation = (id: string, name: string) => ({
  id,
  organization_id: `org-${id}`,
  organization_name: name,
  is_admin: id === 'i1',
  invited_by: 'Dana Admin',
  created_at: '2026-01-02T00:00:00Z',
  expires_at: '2099-01-16T00:00:00Z',
})

describe('pending invitations on the organizations page', () => {
  it('lists invitations to the signed-in user; accepting joins and opens the organization, declining withdraws', async () => {
    let invitations = [invitation('i1', 'Globex'), invitation('i2', 'Initech')]
    let organizations = [organization()]
    const globex = organization({ id: 'org-i1', name: 'Globex', slug: 'globex' })
    const { requests } = mockApi({
      'GET /api/user': user,
      'GET /api/user/invitations': () => json(invitations),
      'GET /api/user/organizations': () => json(organizations),
      'DELETE /api/user/invitations/i2': () => {
        invitations = invitations.filter((i) => i.id !== 'i2')
        return new Response(null, { status: 204 })
      },
      'POST /api/user/invitations/i1/accept': () => {
        invitations = []
        organizations = [...organizations, globex]
        return json(globex)
      },
      'GET /api/organizations/org-i1': globex,
      'GET /api/organizations/org-i1/projects': [],
      'GET /api/organizations/org-i1/collaborators': [],
    })
    const { router } = renderApp('/organizations')
    const section = await screen.findByRole('region', { name: 'Invitations' })
    expect(within(section).getByText('Globex')).toBeInTheDocument()
    expect(within(section).getByText('admin')).toBeInTheDocument()
    expect(within(section).getAllByText(/from Dana Admin/)).toHaveLength(2)

    await userEvent.click(within(section).getByRole('button', { name: 'Decline the invitation to Initech' }))
    await waitFor(() => expect(within(section).queryByText('Initech')).not.toBeInTheDocument())
    expect(requests.some((r) => r.method === 'DELETE' && r.url.pathname === '/api/user/invitations/i2')).toBe(true)

    await userEvent.click(within(section).getByRole('button', { name: 'Accept the invitation to Globex' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Globex' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/organizations/org-i1')
  })

  it('accepting the only way into one project opens that project', async () => {
    let organizations: ReturnType<typeof organization>[] = []
    const globex = organization({ id: 'org-i1', name: 'Globex', slug: 'globex' })
    const shop = project({ id: 'p9', organization_id: 'org-i1', name: 'shop' })
    mockApi({
      'GET /api/user': user,
      'GET /api/user/invitations': () => json(organizations.length === 0 ? [invitation('i1', 'Globex')] : []),
      'GET /api/user/organizations': () => json(organizations),
      'POST /api/user/invitations/i1/accept': () => {
        organizations = [globex]
        return json(globex)
      },
      'GET /api/organizations/org-i1': globex,
      'GET /api/organizations/org-i1/projects': [shop],
      'GET /api/organizations/org-i1/collaborators': [],
      'GET /api/projects/p9': shop,
      'GET /api/projects/p9/errors': [],
      'GET /api/projects/p9/trend': [],
      'GET /api/projects/p9/event_fields': [],
      'GET /api/projects/p9/collaborators': [],
    })
    const { router } = renderApp('/organizations')
    const section = await screen.findByRole('region', { name: 'Invitations' })
    await userEvent.click(within(section).getByRole('button', { name: 'Accept the invitation to Globex' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p9/errors'))
  })

  it('shows nothing without invitations, and why when they cannot be loaded', async () => {
    mockApi({
      'GET /api/user': user,
      'GET /api/user/invitations': json({ errors: ['the database is unavailable or busy; retry shortly'] }, { status: 503 }),
      'GET /api/user/organizations': [organization()],
    })
    renderApp('/organizations')
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load your invitations')
    expect(screen.queryByRole('region', { name: 'Invitations' })).not.toBeInTheDocument()
  })
})
