import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { organization, project, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = signedInUser

const routes = ({ admin = true } = {}) => ({
  'GET /api/user': me,
  'GET /api/user/invitations': [],
  'GET /api/user/organizations': [organization()],
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [project()],
})

async function replace(field: HTMLElement, value: string) {
  await userEvent.clear(field)
  await userEvent.click(field)
  await userEvent.paste(value)
}

// Whole-app renders (route code, dialogs): the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('organization settings page', { timeout: 15_000 }, () => {
  it('is reached from the organization page', async () => {
    mockApi(routes())
    const { router } = renderApp('/organizations/org1')
    await userEvent.click(await screen.findByRole('link', { name: 'Organization settings' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Inc.: settings' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/organizations/org1/settings')
  })

  it('renames the organization for an admin', async () => {
    let current = organization()
    const { requests } = mockApi({
      ...routes(),
      'GET /api/organizations/org1': () => json(current),
      'PATCH /api/organizations/org1': (request) => {
        current = organization({ name: (request.body as { name: string }).name })
        return json(current)
      },
    })
    renderApp('/organizations/org1/settings')
    const field = await screen.findByLabelText('Organization name')
    expect(field).toHaveValue('Acme Inc.')
    await replace(field, 'Acme Corporation')
    await userEvent.keyboard('{Enter}')
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Corporation: settings' })).toBeInTheDocument()
    expect(screen.getByText('Saved.')).toBeInTheDocument()
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ name: 'Acme Corporation' })
  })

  it('shows the server’s validation error by the name field, and other errors below it', async () => {
    let answer = json({ errors: ['name: must be at most 200 characters'] }, { status: 400 })
    mockApi({ ...routes(), 'PATCH /api/organizations/org1': () => answer })
    renderApp('/organizations/org1/settings')
    const field = await screen.findByLabelText('Organization name')
    await replace(field, 'Acme Unlimited')
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }))
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'))
    expect(field).toHaveAccessibleDescription('Organization name must be at most 200 characters.')

    answer = json({ errors: ['only organization admins may do this'] }, { status: 403 })
    await userEvent.type(field, '!')
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }))
    expect(await screen.findByText('only organization admins may do this')).toBeInTheDocument()
    expect(field).not.toHaveAttribute('aria-invalid')
  })

  it('deletes the organization once its name is typed, then lists the organizations', async () => {
    let organizations = [organization()]
    const { requests } = mockApi({
      ...routes(),
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': () => json(organizations),
      'DELETE /api/organizations/org1': () => {
        organizations = []
        return new Response(null, { status: 204 })
      },
    })
    const { router } = renderApp('/organizations/org1/settings')
    await userEvent.click(await screen.findByRole('button', { name: 'Delete organization' }))
    const dialog = screen.getByRole('dialog', { name: 'Delete Acme Inc.?' })
    const confirm = within(dialog).getByRole('button', { name: 'Delete organization' })
    const typed = within(dialog).getByLabelText('Type Acme Inc. to confirm')
    await userEvent.type(typed, 'Acme Inc{Enter}')
    expect(confirm).toBeDisabled()
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false)
    await userEvent.type(typed, '.')
    await userEvent.click(confirm)
    await waitFor(() => expect(router.state.location.pathname).toBe('/organizations'))
    expect(await screen.findByText('No organizations yet')).toBeInTheDocument()
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.url.pathname)).toEqual(['/api/organizations/org1'])
  })

  it('shows members the name read-only, and says only admins can change it', async () => {
    mockApi(routes({ admin: false }))
    renderApp('/organizations/org1/settings')
    expect(await screen.findByText('Only organization admins can rename or delete this organization.')).toBeInTheDocument()
    expect(screen.getByText('Acme Inc.', { selector: 'p' })).toBeInTheDocument()
    expect(screen.queryByLabelText('Organization name')).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Delete|Save/ })).not.toBeInTheDocument()
  })

  it('says when the organization does not exist', async () => {
    mockApi({ ...routes(), 'GET /api/organizations/org1': json({ errors: ['Organization not found'] }, { status: 404 }) })
    renderApp('/organizations/org1/settings')
    expect(await screen.findByRole('heading', { level: 1, name: 'Organization not found' })).toBeInTheDocument()
  })
})
