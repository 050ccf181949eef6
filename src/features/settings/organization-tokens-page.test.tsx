import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { OrganizationToken } from '../../../contract/organization-tokens.ts'
import { organization, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const deploy: OrganizationToken = {
  id: 'ot1',
  name: 'Deploy pipeline',
  created_at: '2026-11-01T00:00:00.000Z',
  last_used_at: '2026-11-22T10:00:00.000Z',
  created_by: { id: signedInUser.id, name: signedInUser.name },
  active: true,
}
const stale: OrganizationToken = { ...deploy, id: 'ot2', name: 'Old importer', last_used_at: null, active: false }

const routes = ({ admin = true } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/user/invitations': [],
  'GET /api/user/organizations': [organization()],
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
})

const rowOf = async (name: string) => {
  const rows = within(await screen.findByRole('table', { name: "The organization's API tokens" })).getAllByRole('row')
  const row = rows.find((r) => within(r).queryByText(name))
  if (!row) throw new Error(`no row for ${name}`)
  return row
}

// Whole-app renders (route code, dialogs): the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('organization API tokens page', { timeout: 15_000 }, () => {
  it('is reached from the organization settings and lists tokens with their last use and whether they work', async () => {
    mockApi({ ...routes(), 'GET /api/organizations/org1/api_tokens': [deploy, stale] })
    const { router } = renderApp('/organizations/org1/settings')
    await userEvent.click(await screen.findByRole('link', { name: 'Manage API tokens' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Inc.: API tokens' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/organizations/org1/api-tokens')
    expect(within(await rowOf('Old importer')).getByText('Never')).toBeInTheDocument()
    expect(within(await rowOf('Old importer')).getByText('Not working')).toBeInTheDocument()
    expect(within(await rowOf('Deploy pipeline')).queryByText('Not working')).not.toBeInTheDocument()
  })

  it('creates a token with a name and shows its secret once', async () => {
    let tokens: OrganizationToken[] = []
    const { requests } = mockApi({
      ...routes(),
      'GET /api/organizations/org1/api_tokens': () => json(tokens),
      'POST /api/organizations/org1/api_tokens': () => {
        tokens = [deploy]
        return json({ ...deploy, token: 'errata_org_secret' }, { status: 201 })
      },
    })
    renderApp('/organizations/org1/api-tokens')
    expect(await screen.findByText('No API tokens')).toBeInTheDocument()
    await userEvent.click(screen.getByLabelText('Name'))
    await userEvent.paste('Deploy pipeline')
    await userEvent.click(screen.getByRole('button', { name: 'Create token' }))
    expect(await screen.findByLabelText('Token “Deploy pipeline”')).toHaveValue('errata_org_secret')
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'Deploy pipeline' })
    expect(within(await screen.findByRole('table', { name: "The organization's API tokens" })).queryByText('errata_org_secret')).not.toBeInTheDocument()
  })

  it('revokes a token after confirming', async () => {
    let tokens = [deploy]
    const { requests } = mockApi({
      ...routes(),
      'GET /api/organizations/org1/api_tokens': () => json(tokens),
      'DELETE /api/organizations/org1/api_tokens/ot1': () => {
        tokens = []
        return new Response(null, { status: 204 })
      },
    })
    renderApp('/organizations/org1/api-tokens')
    await userEvent.click(within(await rowOf('Deploy pipeline')).getByRole('button', { name: /^Revoke API token Deploy pipeline/ }))
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the API token “Deploy pipeline”?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }))
    await waitFor(() => expect(requests.some((r) => r.method === 'DELETE')).toBe(true))
    expect(await screen.findByText('No API tokens')).toBeInTheDocument()
  })

  it('shows an error with a retry when the list cannot be read', async () => {
    mockApi({ ...routes(), 'GET /api/organizations/org1/api_tokens': () => json({ errors: ['boom'] }, { status: 500 }) })
    renderApp('/organizations/org1/api-tokens')
    expect(await screen.findByText('Could not load the API tokens')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: /retry/i })).toBeInTheDocument()
  })

  it('tells a member that admins manage tokens, without asking for them', async () => {
    const { requests } = mockApi(routes({ admin: false }))
    renderApp('/organizations/org1/api-tokens')
    expect(await screen.findByText('Only organization admins manage API tokens')).toBeInTheDocument()
    expect(requests.some((r) => r.url.pathname.includes('api_tokens'))).toBe(false)
  })
})
