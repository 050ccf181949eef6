import { configure, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { organization, project, serverStorage, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const routes = ({ admin = true, storage = serverStorage() } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/user/invitations': [],
  'GET /api/user/organizations': [organization()],
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [project()],
  'GET /api/organizations/org1/storage': storage,
})

/** The definition list's value for `term`. */
const fact = (card: ReturnType<typeof within>, term: string) => card.getByText(term, { selector: 'dt' }).nextElementSibling

// Whole-app renders: the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe("this server's storage", { timeout: 15_000 }, () => {
  it('shows an organization admin the database, the free space, what is kept free and that it is enough', async () => {
    mockApi(routes())
    renderApp('/organizations/org1/settings')
    const card = within(await screen.findByRole('region', { name: 'This server’s storage' }))
    expect(await card.findByText('Database')).toBeInTheDocument()
    expect(fact(card, 'Database')).toHaveTextContent('1.3 GB (embedded)')
    expect(fact(card, 'Data directory on disk')).toHaveTextContent('2.3 GB')
    expect(fact(card, 'Free disk space')).toHaveTextContent('50.0 GB of 100.0 GB')
    expect(fact(card, 'Kept free')).toHaveTextContent('1.0 GB: below it, new errors and source map uploads are refused')
    expect(fact(card, 'Status')).toHaveTextContent('Enough free space')
  })

  it('says so, on the page and in the banner, while the server is low on disk space', async () => {
    mockApi(routes({ storage: serverStorage({ low: true }) }))
    renderApp('/organizations/org1/settings')
    const card = within(await screen.findByRole('region', { name: 'This server’s storage' }))
    expect(await card.findByText('Low on disk space')).toBeInTheDocument()
    const banner = await screen.findByRole('alert')
    expect(banner).toHaveTextContent('This server is low on disk space. Only 2.0 MB of disk space is left, less than the 1.0 GB Errata keeps free.')
    expect(banner).toHaveTextContent('New errors and source map uploads are refused until space is freed')
    expect(within(banner).getByRole('link', { name: 'This server’s storage' })).toHaveAttribute('href', '/organizations/org1/settings')
  })

  it('says PostgreSQL’s free space is not Errata’s to see', async () => {
    mockApi(routes({ storage: serverStorage({ postgres: true }) }))
    renderApp('/organizations/org1/settings')
    const card = within(await screen.findByRole('region', { name: 'This server’s storage' }))
    expect(await card.findByText(/watch it with PostgreSQL’s own tools/)).toBeInTheDocument()
    expect(fact(card, 'Database')).toHaveTextContent('1.3 GB (PostgreSQL)')
    expect(card.queryByText('Free disk space')).not.toBeInTheDocument()
  })

  it('is not shown to members, nor asked for', async () => {
    const { requests } = mockApi(routes({ admin: false, storage: serverStorage({ low: true }) }))
    renderApp('/organizations/org1/settings')
    expect(await screen.findByText('Only organization admins can rename or delete this organization.')).toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'This server’s storage' })).not.toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(requests.some((r) => r.url.pathname.endsWith('/storage'))).toBe(false)
  })
})
