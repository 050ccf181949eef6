import { configure, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { organization, project, rateLimit, serverStorage, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const routes = ({ admin = true, low = true } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/user/invitations': [],
  'GET /api/user/organizations': [organization()],
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [project()],
  'GET /api/projects/p1/rate_limit': rateLimit(),
  'GET /api/organizations/org1/storage': serverStorage({ low }),
})

// Whole-app renders: the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('the low disk space banner', { timeout: 15_000 }, () => {
  it('shows an admin, on a project’s pages, that events and uploads are refused', async () => {
    mockApi(routes())
    renderApp('/projects/p1/settings')
    const banner = await screen.findByRole('alert')
    expect(banner).toHaveTextContent('This server is low on disk space. Only 2.0 MB of disk space is left')
    expect(banner.closest('main')).not.toBeNull()
  })

  it('is absent while there is enough space', async () => {
    mockApi(routes({ low: false }))
    renderApp('/organizations/org1/settings')
    // The section reads the same answer as the banner: once it shows, the banner has decided.
    expect(await screen.findByText('Enough free space')).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })

  it('is never asked for by members (the collaborators, read before the page, say they are not admins)', async () => {
    const { requests } = mockApi(routes({ admin: false }))
    renderApp('/projects/p1/settings')
    expect(await screen.findByRole('region', { name: 'Rate limit' })).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(requests.some((r) => r.url.pathname.endsWith('/storage'))).toBe(false)
  })
})
