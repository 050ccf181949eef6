import { configure, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { PASSWORD_RULE } from '../../../contract/users.ts'
import { organization, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { readToken } from '../../lib/token-store.ts'

/** Types a whole value at once: keystroke-by-keystroke typing is slow on a loaded machine and tests nothing more here. */
async function fill(field: HTMLElement, value: string) {
  await userEvent.click(field)
  await userEvent.paste(value)
}


const invitation = {
  organization_name: 'Acme Inc.',
  email: 'carol@example.com',
  is_admin: false,
  expires_at: '2026-12-31T00:00:00.000Z',
}
const carol = { id: 'u3', name: 'Carol', email: 'carol@example.com', created_at: '2026-11-20T00:00:00.000Z' }

// Whole-app renders (route code, dialogs): the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('invitation accept page', { timeout: 15_000 }, () => {
  it('creates the account, keeps the returned token and opens the organizations', async () => {
    const { requests } = mockApi({
      'GET /api/invitations/tok-123': invitation,
      'POST /api/invitations/tok-123/accept': json({ token: 'new-session-token', user: carol }, { status: 201 }),
      'GET /api/user': carol,
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': [organization()],
    })
    const { router } = renderApp('/invitations/tok-123', { token: null })
    expect(await screen.findByRole('heading', { name: 'Join Acme Inc.' })).toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveValue('carol@example.com')

    await fill(screen.getByLabelText('Name'), 'Carol')
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(PASSWORD_RULE)
    await fill(screen.getByLabelText('Password'), 'a long password')
    await fill(screen.getByLabelText('Confirm password'), 'a long password')
    await userEvent.click(screen.getByRole('button', { name: 'Create account and join' }))

    await waitFor(() => expect(router.state.location.pathname).toBe('/organizations'))
    expect(await screen.findByRole('link', { name: /Acme Inc\./ })).toBeInTheDocument()
    expect(readToken()).toBe('new-session-token')
    const accept = requests.find((r) => r.method === 'POST')
    expect(accept?.body).toEqual({ name: 'Carol', password: 'a long password' })
    // Later requests are made as the new user.
    const list = requests.find((r) => r.url.pathname === '/api/user/organizations')
    expect(list?.headers.get('Authorization')).toBe('token new-session-token')
  })

  it('lands a member who can open exactly one project on that project', async () => {
    mockApi({
      'GET /api/invitations/tok-123': invitation,
      'POST /api/invitations/tok-123/accept': json({ token: 'new-session-token', user: carol }, { status: 201 }),
      'GET /api/user': carol,
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': [organization()],
      'GET /api/organizations/org1/projects': [project()],
      'GET /api/projects/p1': project(),
      'GET /api/organizations/org1': organization(),
      'GET /api/projects/p1/errors': [],
      'GET /api/projects/p1/trend': [],
      'GET /api/projects/p1/event_fields': [],
      'GET /api/projects/p1/collaborators': [],
    })
    const { router } = renderApp('/invitations/tok-123', { token: null })
    await screen.findByRole('heading', { name: 'Join Acme Inc.' })
    await fill(screen.getByLabelText('Name'), 'Carol')
    await fill(screen.getByLabelText('Password'), 'a long password')
    await fill(screen.getByLabelText('Confirm password'), 'a long password')
    await userEvent.click(screen.getByRole('button', { name: 'Create account and join' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors'))
  })

  it('warns someone signed in as another user that accepting signs them out here', async () => {
    mockApi({
      'GET /api/invitations/tok-123': invitation,
      'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
    })
    renderApp('/invitations/tok-123')
    expect(await screen.findByRole('note')).toHaveTextContent('You are signed in as admin@example.com in this browser')
  })

  it('stays on the invitation when the stored sign-in has expired, without a warning', async () => {
    mockApi({
      'GET /api/invitations/tok-123': invitation,
      'GET /api/user': json({ errors: ['invalid token'] }, { status: 401 }),
    })
    const { router } = renderApp('/invitations/tok-123')
    expect(await screen.findByRole('heading', { name: 'Join Acme Inc.' })).toBeInTheDocument()
    await waitFor(() => expect(readToken()).toBeNull())
    expect(router.state.location.pathname).toBe('/invitations/tok-123')
    expect(screen.queryByRole('note')).not.toBeInTheDocument()
  })

  it('checks that the passwords match before sending anything', async () => {
    const { requests } = mockApi({ 'GET /api/invitations/tok-123': invitation })
    renderApp('/invitations/tok-123', { token: null })
    await fill(await screen.findByLabelText('Name'), 'Carol')
    await fill(screen.getByLabelText('Password'), 'a long password')
    await fill(screen.getByLabelText('Confirm password'), 'another password')
    await userEvent.click(screen.getByRole('button', { name: 'Create account and join' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('The two passwords do not match.')
    expect(requests.some((r) => r.method === 'POST')).toBe(false)
  })

  it('shows the server refusal when the email got an account meanwhile, with a way to sign in', async () => {
    mockApi({
      'GET /api/invitations/tok-123': invitation,
      'POST /api/invitations/tok-123/accept': json(
        { errors: ['email: carol@example.com already has an account; sign in and ask an admin to add you'] },
        { status: 409 },
      ),
    })
    renderApp('/invitations/tok-123', { token: null })
    await fill(await screen.findByLabelText('Name'), 'Carol')
    await fill(screen.getByLabelText('Password'), 'a long password')
    await fill(screen.getByLabelText('Confirm password'), 'a long password')
    await userEvent.click(screen.getByRole('button', { name: 'Create account and join' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('already has an account')
    expect(screen.getByRole('link', { name: 'Sign in instead' })).toHaveAttribute('href', '/login')
    expect(readToken()).toBeNull()
  })

  it('says clearly when the invitation is unknown or expired', async () => {
    mockApi({ 'GET /api/invitations/gone': json({ errors: ['invitation not found or expired'] }, { status: 404 }) })
    renderApp('/invitations/gone', { token: null })
    expect(await screen.findByRole('heading', { name: 'Invitation not found' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/login')
  })
})
