import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Collaborator } from '../../../contract/collaborators.ts'
import { organization, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

/** Types a whole value at once: keystroke-by-keystroke typing is slow on a loaded machine and tests nothing more here. */
async function fill(field: HTMLElement, value: string) {
  await userEvent.click(field)
  await userEvent.paste(value)
}


const me = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }

const collaborator = (overrides: Partial<Collaborator> = {}): Collaborator => ({
  id: 'u1',
  name: 'Admin',
  email: 'admin@example.com',
  is_admin: true,
  project_ids: null,
  pending_invitation: false,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
})

const admin = collaborator()
const bob = collaborator({ id: 'u2', name: 'Bob', email: 'bob@example.com', is_admin: false, project_ids: ['p2'] })
const pending = collaborator({ id: 'inv1', name: '', email: 'carol@example.com', is_admin: false, pending_invitation: true })

const baseRoutes = (collaborators: Collaborator[]) => ({
  'GET /api/user': me,
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/projects': [project(), project({ id: 'p2', name: 'web-app' })],
  'GET /api/organizations/org1/collaborators': collaborators,
})

const table = () => screen.findByRole('table', { name: 'Collaborators' })
const rowOf = async (name: string) => {
  const rows = within(await table()).getAllByRole('row')
  const row = rows.find((r) => within(r).queryByText(name))
  if (!row) throw new Error(`no row for ${name}`)
  return row
}

// Whole-app renders (route code, dialogs): the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('collaborators page', { timeout: 15_000 }, () => {
  it('lists members and pending invitations with role and projects', async () => {
    mockApi(baseRoutes([admin, bob, pending]))
    renderApp('/organizations/org1/collaborators')
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Inc.: collaborators' })).toBeInTheDocument()
    expect(screen.getByText(/2 members · 1 pending invitation/)).toBeInTheDocument()

    const adminRow = await rowOf('admin@example.com')
    expect(within(adminRow).getByText('Admin', { selector: 'span.rounded-full' })).toBeInTheDocument()
    expect(within(adminRow).getByText('All projects')).toBeInTheDocument()
    expect(within(adminRow).getByText('You')).toBeInTheDocument()

    const bobRow = await rowOf('bob@example.com')
    expect(within(bobRow).getByText('Member')).toBeInTheDocument()
    expect(within(bobRow).getByText('web-app')).toBeInTheDocument()

    const carolRow = await rowOf('carol@example.com')
    expect(within(carolRow).getByText('Pending')).toBeInTheDocument()
  })

  it('is reached from the organization page', async () => {
    mockApi(baseRoutes([admin, bob]))
    const { router } = renderApp('/organizations/org1')
    await userEvent.click(await screen.findByRole('link', { name: 'Manage collaborators' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/organizations/org1/collaborators'))
    expect(await rowOf('bob@example.com')).toBeInTheDocument()
  })

  it('lets an admin invite with a project selection and shows the accept link once', async () => {
    let collaborators = [admin]
    const invited = { ...pending, project_ids: ['p2'], invitation_url: 'http://localhost:3000/invitations/secret-token', invitation_emailed: false }
    const { requests } = mockApi({
      ...baseRoutes([]),
      'GET /api/organizations/org1/collaborators': () => json(collaborators),
      'POST /api/organizations/org1/collaborators': () => {
        collaborators = [admin, { ...pending, project_ids: ['p2'] }]
        return json(invited, { status: 201 })
      },
    })
    renderApp('/organizations/org1/collaborators')
    const form = await screen.findByRole('form', { name: 'Invite a collaborator' })
    await fill(within(form).getByLabelText('Email'), 'carol@example.com')
    await userEvent.click(within(form).getByLabelText('All projects'))
    await userEvent.click(within(form).getByLabelText('web-app'))
    await userEvent.click(within(form).getByRole('button', { name: 'Invite' }))

    const link = await screen.findByLabelText('Invitation link for carol@example.com')
    expect(link).toHaveValue('http://localhost:3000/invitations/secret-token')
    expect(screen.getByText(/shown only this once/)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Copy invitation link for carol@example.com' })).toBeInTheDocument()
    const post = requests.find((r) => r.method === 'POST')
    expect(post?.body).toEqual({ email: 'carol@example.com', is_admin: false, project_ids: ['p2'] })

    const carolRow = await rowOf('carol@example.com')
    expect(within(carolRow).getByText('Pending')).toBeInTheDocument()
    expect(within(carolRow).getByText('web-app')).toBeInTheDocument()
    // The form is ready for the next invitation.
    expect(within(form).getByLabelText('Email')).toHaveValue('')
  })

  it('invites an admin by email only: the invitee picks their own name and password', async () => {
    const { requests } = mockApi({
      ...baseRoutes([admin]),
      'POST /api/organizations/org1/collaborators': json(
        { ...pending, id: 'inv9', email: 'dan@example.com', is_admin: true, invitation_url: 'http://localhost:3000/invitations/dan-token', invitation_emailed: true },
        { status: 201 },
      ),
    })
    renderApp('/organizations/org1/collaborators')
    const form = await screen.findByRole('form', { name: 'Invite a collaborator' })
    // Nothing here sets an account's name or password.
    expect(within(form).queryByLabelText(/password/i)).not.toBeInTheDocument()
    expect(within(form).queryByLabelText('Name')).not.toBeInTheDocument()
    await fill(within(form).getByLabelText('Email'), 'dan@example.com')
    await userEvent.click(within(form).getByLabelText(/^Admin/))
    expect(within(form).getByLabelText('All projects')).toBeDisabled()
    await userEvent.click(within(form).getByRole('button', { name: 'Invite' }))

    expect(await screen.findByLabelText('Invitation link for dan@example.com')).toHaveValue('http://localhost:3000/invitations/dan-token')
    expect(screen.getByText(/An email with this link was sent to dan@example.com/)).toBeInTheDocument()
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ email: 'dan@example.com', is_admin: true, project_ids: null })
  })

  it('shows the server field errors of an invitation inline', async () => {
    mockApi({
      ...baseRoutes([admin]),
      'POST /api/organizations/org1/collaborators': json({ errors: ['email: bob@example.com is already a collaborator'] }, { status: 409 }),
    })
    renderApp('/organizations/org1/collaborators')
    const form = await screen.findByRole('form', { name: 'Invite a collaborator' })
    await fill(within(form).getByLabelText('Email'), 'bob@example.com')
    await userEvent.click(within(form).getByRole('button', { name: 'Invite' }))
    expect(await within(form).findByRole('alert')).toHaveTextContent('email: bob@example.com is already a collaborator')
  })

  it('shows a non-admin the list read-only, without any action control', async () => {
    const { requests } = mockApi({
      ...baseRoutes([collaborator({ is_admin: true, id: 'u0', name: 'Boss', email: 'boss@example.com' }), collaborator({ is_admin: false }), pending]),
    })
    renderApp('/organizations/org1/collaborators')
    const list = await table()
    expect(within(list).getByText('boss@example.com')).toBeInTheDocument()
    expect(within(list).getByText('carol@example.com')).toBeInTheDocument()
    expect(within(list).queryAllByRole('button')).toHaveLength(0)
    expect(within(list).queryByRole('columnheader', { name: 'Actions' })).not.toBeInTheDocument()
    expect(screen.queryByRole('form', { name: 'Invite a collaborator' })).not.toBeInTheDocument()
    expect(screen.getByText(/only admins can invite/)).toBeInTheDocument()
    expect(requests.every((r) => r.method === 'GET')).toBe(true)
  })

  it('tells a member limited to some projects that an empty list means none they can see', async () => {
    // As the API answers a member limited to p2: other people's project_ids keep only p2, so
    // someone on p1 alone and someone on no project both come as [].
    const limited = collaborator({ is_admin: false, project_ids: ['p2'] })
    const onlyHidden = collaborator({ id: 'u3', name: 'Dan', email: 'dan@example.com', is_admin: false, project_ids: [] })
    const invitedElsewhere = collaborator({ id: 'inv2', name: '', email: 'erin@example.com', is_admin: false, project_ids: [], pending_invitation: true })
    const boss = collaborator({ id: 'u0', name: 'Boss', email: 'boss@example.com' })
    mockApi({
      ...baseRoutes([boss, limited, onlyHidden, invitedElsewhere]),
      'GET /api/organizations/org1/projects': [project({ id: 'p2', name: 'web-app' })],
    })
    renderApp('/organizations/org1/collaborators')
    expect(within(await rowOf('dan@example.com')).getByText('No projects you can see')).toBeInTheDocument()
    expect(within(await rowOf('erin@example.com')).getByText('No projects you can see')).toBeInTheDocument()
    expect(screen.queryByText('No projects')).not.toBeInTheDocument()
    // Their own list is whole, and "All projects" stays true.
    expect(within(await rowOf('admin@example.com')).getByText('web-app')).toBeInTheDocument()
    expect(within(await rowOf('boss@example.com')).getByText('All projects')).toBeInTheDocument()
  })

  it('says "No projects" to an unrestricted viewer for a member on no project', async () => {
    mockApi(baseRoutes([admin, collaborator({ id: 'u3', name: 'Dan', email: 'dan@example.com', is_admin: false, project_ids: [] })]))
    renderApp('/organizations/org1/collaborators')
    expect(within(await rowOf('dan@example.com')).getByText('No projects')).toBeInTheDocument()
  })

  it('offers the last admin neither "Make member" nor "Remove" (the server refuses both), and says why', async () => {
    const admin2 = collaborator({ id: 'u4', name: 'Dee', email: 'dee@example.com', is_admin: true })
    // A pending admin invitation is not an admin yet: it does not make the admin's row safe to demote.
    const pendingAdmin = collaborator({ id: 'inv2', name: '', email: 'eve@example.com', is_admin: true, pending_invitation: true })
    mockApi(baseRoutes([admin, bob, pendingAdmin]))
    const { unmount } = renderApp('/organizations/org1/collaborators')
    const row = await rowOf('admin@example.com')
    expect(within(row).queryByRole('button', { name: /^Make member/ })).not.toBeInTheDocument()
    expect(within(row).queryByRole('button', { name: /^Remove/ })).not.toBeInTheDocument()
    expect(within(row).getByText(/The only admin: make someone else an admin/)).toBeInTheDocument()
    // Other rows keep their actions; the pending admin invitation can be withdrawn.
    expect(within(await rowOf('bob@example.com')).getByRole('button', { name: 'Remove Bob' })).toBeInTheDocument()
    expect(within(await rowOf('eve@example.com')).getByRole('button', { name: 'Withdraw invitation for eve@example.com' })).toBeInTheDocument()
    unmount()

    // With a second admin, either may step down or be removed.
    mockApi(baseRoutes([admin, admin2]))
    renderApp('/organizations/org1/collaborators')
    for (const [email, name] of [['admin@example.com', 'Admin'], ['dee@example.com', 'Dee']]) {
      const adminRow = await rowOf(email!)
      expect(within(adminRow).getByRole('button', { name: `Make member: ${name}` })).toBeInTheDocument()
      expect(within(adminRow).getByRole('button', { name: `Remove ${name}` })).toBeInTheDocument()
    }
  })

  it('names every action button starting with its visible words (WCAG 2.5.3)', async () => {
    mockApi(baseRoutes([admin, collaborator({ id: 'u4', name: 'Dee', email: 'dee@example.com', is_admin: true }), bob, pending]))
    renderApp('/organizations/org1/collaborators')
    const buttons = within(await table()).getAllByRole('button')
    expect(buttons.length).toBeGreaterThan(5)
    for (const button of buttons) {
      const visible = (button.textContent ?? '').trim()
      expect(button.getAttribute('aria-label') ?? visible).toMatch(new RegExp(`^${visible}`))
    }
  })

  it('chooses the projects of an admin made a member, in the same dialog', async () => {
    const carl = collaborator({ id: 'u3', name: 'Carl', email: 'carl@example.com', is_admin: true })
    const { requests } = mockApi({
      ...baseRoutes([admin, carl]),
      'PATCH /api/organizations/org1/collaborators/u3': json({ ...carl, is_admin: false, project_ids: ['p2'] }),
    })
    renderApp('/organizations/org1/collaborators')
    await userEvent.click(within(await rowOf('carl@example.com')).getByRole('button', { name: 'Make member: Carl' }))
    const dialog = await screen.findByRole('dialog', { name: 'Make Carl a member?' })
    expect(within(dialog).getByText(/will see only the projects chosen here/)).toBeInTheDocument()
    await userEvent.click(within(dialog).getByLabelText('All projects'))
    // No project chosen yet: nothing to confirm.
    expect(within(dialog).getByRole('button', { name: 'Make member' })).toBeDisabled()
    await userEvent.click(within(dialog).getByLabelText('web-app'))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Make member' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ is_admin: false, project_ids: ['p2'] })
  })

  it('says that promoting lifts a project limit', async () => {
    mockApi(baseRoutes([admin, bob]))
    renderApp('/organizations/org1/collaborators')
    await userEvent.click(within(await rowOf('bob@example.com')).getByRole('button', { name: 'Make admin: Bob' }))
    const dialog = await screen.findByRole('dialog', { name: 'Make Bob an admin?' })
    expect(within(dialog).getByText(/access limited to one project is lifted/)).toBeInTheDocument()
  })

  it('promotes a member after confirmation', async () => {
    let collaborators = [admin, bob]
    const { requests } = mockApi({
      ...baseRoutes([]),
      'GET /api/organizations/org1/collaborators': () => json(collaborators),
      'PATCH /api/organizations/org1/collaborators/u2': () => {
        collaborators = [admin, { ...bob, is_admin: true, project_ids: null }]
        return json(collaborators[1])
      },
    })
    renderApp('/organizations/org1/collaborators')
    await userEvent.click(within(await rowOf('bob@example.com')).getByRole('button', { name: 'Make admin: Bob' }))
    const dialog = await screen.findByRole('dialog', { name: 'Make Bob an admin?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Make admin' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ is_admin: true })
    expect(await within(await rowOf('bob@example.com')).findByText('Admin', { selector: 'span.rounded-full' })).toBeInTheDocument()
  })

  it('edits the projects of a member', async () => {
    const { requests } = mockApi({
      ...baseRoutes([admin, bob]),
      'PATCH /api/organizations/org1/collaborators/u2': json({ ...bob, project_ids: ['p1', 'p2'] }),
    })
    renderApp('/organizations/org1/collaborators')
    await userEvent.click(within(await rowOf('bob@example.com')).getByRole('button', { name: 'Projects of Bob' }))
    const dialog = await screen.findByRole('dialog', { name: 'Projects of Bob' })
    expect(within(dialog).getByLabelText('web-app')).toBeChecked()
    await userEvent.click(within(dialog).getByLabelText('checkout-api'))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save projects' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ project_ids: ['p1', 'p2'] })
  })

  it('removes a collaborator only after confirmation, with a DELETE', async () => {
    let collaborators = [admin, bob]
    const { requests } = mockApi({
      ...baseRoutes([]),
      'GET /api/organizations/org1/collaborators': () => json(collaborators),
      'DELETE /api/organizations/org1/collaborators/u2': () => {
        collaborators = [admin]
        return new Response(null, { status: 204 })
      },
    })
    renderApp('/organizations/org1/collaborators')
    await userEvent.click(within(await rowOf('bob@example.com')).getByRole('button', { name: 'Remove Bob' }))
    const dialog = await screen.findByRole('dialog', { name: 'Remove Bob?' })
    expect(within(dialog).getByText(/loses access to Acme Inc\./)).toBeInTheDocument()
    // Cancelling sends nothing.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false)

    await userEvent.click(within(await rowOf('bob@example.com')).getByRole('button', { name: 'Remove Bob' }))
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Remove Bob?' })).getByRole('button', { name: 'Remove' }))
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Collaborators' })).queryByText('bob@example.com')).not.toBeInTheDocument())
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.url.pathname)).toEqual(['/api/organizations/org1/collaborators/u2'])
    // The Remove button went with its row: focus stays in the page for keyboard users, not on <body>.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('main')))
  })

  it('creates a new invitation link for a pending invitation', async () => {
    const { requests } = mockApi({
      ...baseRoutes([admin, pending]),
      'POST /api/organizations/org1/collaborators': json({ ...pending, invitation_url: 'http://localhost:3000/invitations/new-token', invitation_emailed: false }, { status: 201 }),
    })
    renderApp('/organizations/org1/collaborators')
    await userEvent.click(within(await rowOf('carol@example.com')).getByRole('button', { name: 'New link for carol@example.com' }))
    const dialog = await screen.findByRole('dialog')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create link' }))
    expect(await screen.findByLabelText('Invitation link for carol@example.com')).toHaveValue('http://localhost:3000/invitations/new-token')
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ email: 'carol@example.com', is_admin: false, project_ids: null })
  })

  it('shows an error with a retry when the list cannot be loaded', async () => {
    let fail = true
    mockApi({
      ...baseRoutes([]),
      'GET /api/organizations/org1/collaborators': () =>
        fail ? json({ errors: ['database unavailable'] }, { status: 503 }) : json([admin]),
    })
    renderApp('/organizations/org1/collaborators')
    expect(await screen.findByText('Could not load the collaborators')).toBeInTheDocument()
    expect(screen.getByText('database unavailable')).toBeInTheDocument()
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await table()).toBeInTheDocument()
  })
})
