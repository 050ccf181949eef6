import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { organization, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const user = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }
const adminOfOrg1 = { id: 'u1', name: 'Admin', email: 'admin@example.com', is_admin: true, project_ids: null, pending_invitation: false, created_at: '2026-01-01T00:00:00Z' }

describe('organizations pages', () => {
  it('creates an organization and opens it', async () => {
    let organizations = [organization()]
    const created = organization({ id: 'org2', name: 'Globex', slug: 'globex' })
    mockApi({
      'GET /api/user': user,
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': () => json(organizations),
      'POST /api/user/organizations': () => {
        organizations = [...organizations, created]
        return json(created, { status: 201 })
      },
      'GET /api/organizations/org2': created,
      'GET /api/organizations/org2/projects': [],
      'GET /api/organizations/org2/collaborators': [
        { id: 'u1', name: 'Admin', email: 'admin@example.com', is_admin: true, project_ids: null, pending_invitation: false, created_at: '2026-01-01T00:00:00Z' },
      ],
    })
    const { router } = renderApp('/organizations')
    expect(await screen.findByRole('link', { name: /Acme Inc\./ })).toBeInTheDocument()
    await userEvent.type(screen.getByLabelText('Name'), 'Globex')
    await userEvent.click(screen.getByRole('button', { name: 'Create organization' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Globex' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/organizations/org2')
    expect(screen.getByText('No projects yet')).toBeInTheDocument()
    expect(await screen.findByText('admin@example.com', { selector: 'span.block' })).toBeInTheDocument()
  })

  it('shows why an organization could not be created', async () => {
    mockApi({
      'GET /api/user': user,
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': [],
      'POST /api/user/organizations': json({ errors: ['name: must be at most 200 characters'] }, { status: 400 }),
    })
    renderApp('/organizations')
    expect(await screen.findByText('No organizations yet')).toBeInTheDocument()
    await userEvent.type(screen.getByLabelText('Name'), 'x')
    await userEvent.click(screen.getByRole('button', { name: 'Create organization' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('name: must be at most 200 characters')
  })

  it('lists projects with open error counts and API keys, and creates a project of a chosen type', async () => {
    const { requests } = mockApi({
      'GET /api/user': user,
      'GET /api/organizations/org1': organization(),
      'GET /api/organizations/org1/projects': [project({ open_error_count: 7 })],
      'GET /api/organizations/org1/collaborators': [adminOfOrg1],
      'POST /api/organizations/org1/projects': json(project({ id: 'p2', name: 'web' }), { status: 201 }),
      'GET /api/projects/p2': project({ id: 'p2', name: 'web' }),
      'GET /api/projects/p2/errors': [],
    })
    const { router } = renderApp('/organizations/org1')
    const list = await screen.findByRole('list', { name: 'Projects' })
    const row = within(list).getByRole('listitem')
    expect(within(row).getByRole('link', { name: 'checkout-api' })).toHaveAttribute('href', '/projects/p1/errors')
    expect(within(row).getByText('7 open errors')).toBeInTheDocument()
    expect(within(row).getByLabelText('API key of checkout-api')).toHaveTextContent('0123456789abcdef0123456789abcdef')
    expect(within(row).getByRole('button', { name: 'Copy API key of checkout-api' })).toBeInTheDocument()

    // The form is for admins: it appears once the collaborators say this user is one.
    await userEvent.type(await screen.findByLabelText('Name'), 'web')
    await userEvent.selectOptions(screen.getByLabelText('Type'), 'browser')
    await userEvent.click(screen.getByRole('button', { name: 'Create project' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p2/errors'))
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'web', type: 'browser' })
    expect(await screen.findByRole('heading', { name: 'Send your first error' })).toBeInTheDocument()
  })

  it('offers members no project form and no management, which only admins may use', async () => {
    mockApi({
      'GET /api/user': user,
      'GET /api/organizations/org1': organization(),
      'GET /api/organizations/org1/projects': [project()],
      'GET /api/organizations/org1/collaborators': [{ ...adminOfOrg1, is_admin: false }, { ...adminOfOrg1, id: 'u9', name: 'Owner', email: 'owner@example.com' }],
    })
    renderApp('/organizations/org1')
    expect(await screen.findByRole('link', { name: 'All collaborators' })).toBeInTheDocument()
    expect(screen.getByRole('list', { name: 'Projects' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Create project' })).not.toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Manage collaborators' })).not.toBeInTheDocument()
  })

  it('says which organization was not found', async () => {
    mockApi({
      'GET /api/user': user,
      'GET /api/organizations/missing': json({ errors: ['organization not found'] }, { status: 404 }),
      'GET /api/organizations/missing/projects': json({ errors: ['organization not found'] }, { status: 404 }),
    })
    renderApp('/organizations/missing')
    expect(await screen.findByRole('heading', { name: 'Organization not found' })).toBeInTheDocument()
    expect(screen.getByText('missing')).toBeInTheDocument()
  })
})
