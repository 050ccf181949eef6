import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { organization, project, rateLimit, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const NEW_KEY = 'fedcba9876543210fedcba9876543210'

const routes = ({ admin = true } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [project()],
  'GET /api/projects/p1/rate_limit': rateLimit(),
})

/** Types a whole value at once: keystroke-by-keystroke typing is slow on a loaded machine and tests nothing more here. */
async function replace(field: HTMLElement, value: string) {
  await userEvent.clear(field)
  await userEvent.click(field)
  await userEvent.paste(value)
}

// Whole-app renders (route code, dialogs): the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('project settings page', { timeout: 15_000 }, () => {
  it('is reached from the project’s tab bar, which marks it as the current page', async () => {
    mockApi({ ...routes(), 'GET /api/projects/p1/errors': [] })
    const { router } = renderApp('/projects/p1/errors')
    await userEvent.click(within(await screen.findByRole('navigation', { name: 'Project' })).getByRole('link', { name: 'Settings' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'checkout-api: settings' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/projects/p1/settings')
    const projectTabs = screen.getByRole('navigation', { name: 'Project' })
    expect(within(projectTabs).getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page')
    expect(within(projectTabs).getByRole('link', { name: 'Errors' })).not.toHaveAttribute('aria-current')
  })

  it('renames the project for an admin', async () => {
    let current = project()
    const { requests } = mockApi({
      ...routes(),
      'GET /api/projects/p1': () => json(current),
      'PATCH /api/projects/p1': (request) => {
        current = project({ name: (request.body as { name: string }).name })
        return json(current)
      },
    })
    renderApp('/projects/p1/settings')
    const field = await screen.findByLabelText('Project name')
    expect(field).toHaveValue('checkout-api')
    await replace(field, 'payments-api')
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'payments-api: settings' })).toBeInTheDocument()
    expect(screen.getByText('Saved.')).toBeInTheDocument()
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ name: 'payments-api' })
  })

  it('shows the server’s validation error by the name field', async () => {
    mockApi({ ...routes(), 'PATCH /api/projects/p1': json({ errors: ['name: must not be empty'] }, { status: 400 }) })
    renderApp('/projects/p1/settings')
    const field = await screen.findByLabelText('Project name')
    await replace(field, '   ')
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }))
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'))
    expect(field).toHaveAccessibleDescription('Project name must not be empty.')
    expect(screen.getByRole('heading', { level: 1, name: 'checkout-api: settings' })).toBeInTheDocument()
    // Editing the name clears the error.
    await userEvent.type(field, 'x')
    expect(field).not.toHaveAttribute('aria-invalid')
  })

  it('regenerates the API key after a warning and shows the new key to copy', async () => {
    let current = project()
    const { requests } = mockApi({
      ...routes(),
      'GET /api/projects/p1': () => json(current),
      'DELETE /api/projects/p1/api_key': () => {
        current = project({ api_key: NEW_KEY })
        return json(current)
      },
    })
    renderApp('/projects/p1/settings')
    expect(await screen.findByLabelText('API key of checkout-api')).toHaveTextContent('0123456789abcdef0123456789abcdef')
    await userEvent.click(screen.getByRole('button', { name: 'Regenerate API key' }))
    const confirm = screen.getByRole('dialog', { name: 'Regenerate the API key of checkout-api?' })
    expect(confirm).toHaveAccessibleDescription(/Notifiers still sending the current key will be refused/)
    // Cancel first: nothing is sent.
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false)

    await userEvent.click(screen.getByRole('button', { name: 'Regenerate API key' }))
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Regenerate key' }))
    const result = await screen.findByRole('dialog', { name: 'New API key for checkout-api' })
    expect(within(result).getByLabelText('API key of checkout-api')).toHaveTextContent(NEW_KEY)
    expect(within(result).getByRole('button', { name: 'Copy API key of checkout-api' })).toBeInTheDocument()
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.url.pathname)).toEqual(['/api/projects/p1/api_key'])
    await userEvent.click(within(result).getByRole('button', { name: 'Done' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(screen.getByLabelText('API key of checkout-api')).toHaveTextContent(NEW_KEY)
  })

  it('shows why the key could not be regenerated, in the dialog', async () => {
    mockApi({
      ...routes(),
      'DELETE /api/projects/p1/api_key': json({ errors: ['only organization admins may do this'] }, { status: 403 }),
    })
    renderApp('/projects/p1/settings')
    await userEvent.click(await screen.findByRole('button', { name: 'Regenerate API key' }))
    const dialog = screen.getByRole('dialog')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Regenerate key' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('only organization admins may do this')
    expect(screen.getByLabelText('API key of checkout-api')).toHaveTextContent('0123456789abcdef0123456789abcdef')
  })

  it('deletes the project once its name is typed, then opens the organization', async () => {
    let projects = [project()]
    const { requests } = mockApi({
      ...routes(),
      'GET /api/organizations/org1/projects': () => json(projects),
      'DELETE /api/projects/p1': () => {
        projects = []
        return new Response(null, { status: 204 })
      },
    })
    const { router } = renderApp('/projects/p1/settings')
    await userEvent.click(await screen.findByRole('button', { name: 'Delete project' }))
    const dialog = screen.getByRole('dialog', { name: 'Delete checkout-api?' })
    const confirm = within(dialog).getByRole('button', { name: 'Delete project' })
    expect(confirm).toBeDisabled()
    const typed = within(dialog).getByLabelText('Type checkout-api to confirm')
    await userEvent.type(typed, 'checkout')
    expect(confirm).toBeDisabled()
    await userEvent.paste('-api')
    expect(confirm).toBeEnabled()
    await userEvent.click(confirm)
    await waitFor(() => expect(router.state.location.pathname).toBe('/organizations/org1'))
    expect(await screen.findByText('No projects yet')).toBeInTheDocument()
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.url.pathname)).toEqual(['/api/projects/p1'])
  })

  it('shows members the name and key read-only, and says only admins can change them', async () => {
    mockApi(routes({ admin: false }))
    renderApp('/projects/p1/settings')
    expect(await screen.findByText(/Only organization admins can rename or delete this project/)).toBeInTheDocument()
    expect(screen.getByLabelText('API key of checkout-api')).toBeInTheDocument()
    expect(screen.queryByLabelText('Project name')).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Regenerate|Delete|Save/ })).not.toBeInTheDocument()
  })

  it('says when the project does not exist', async () => {
    mockApi({ ...routes(), 'GET /api/projects/p1': json({ errors: ['Project not found'] }, { status: 404 }) })
    renderApp('/projects/p1/settings')
    expect(await screen.findByRole('heading', { level: 1, name: 'Project not found' })).toBeInTheDocument()
  })

  it('offers a retry when the settings cannot be loaded', async () => {
    let fail = true
    mockApi({
      ...routes(),
      'GET /api/projects/p1': () => (fail ? json({ errors: ['database unavailable'] }, { status: 500 }) : json(project())),
    })
    renderApp('/projects/p1/settings')
    expect(await screen.findByText('Could not load the project settings')).toBeInTheDocument()
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'checkout-api: settings' })).toBeInTheDocument()
  })
})
