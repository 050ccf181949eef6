import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { organization, project, projectStorage, rateLimit, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const routes = ({ admin = true } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [project()],
  'GET /api/projects/p1/rate_limit': rateLimit(),
  'GET /api/projects/p1/storage': projectStorage(),
})

const row = (table: HTMLElement, name: string) => within(table).getByRole('row', { name: new RegExp(`^${name}`) })

// Whole-app renders: the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('project storage', { timeout: 15_000 }, () => {
  it('shows an admin what the project takes on disk, in sizes people read, and measures again on request', async () => {
    const { requests } = mockApi(routes())
    renderApp('/projects/p1/settings')
    const card = within(await screen.findByRole('region', { name: 'Storage' }))
    const table = await card.findByRole('table', { name: "Disk space taken by this project's data" })
    expect(row(table, 'Events')).toHaveTextContent('900,000 events127.0 MB')
    expect(row(table, 'Event details as received')).toHaveTextContent('900,000 payloads721.0 MB')
    expect(row(table, 'Source maps')).toHaveTextContent('3 uploads3.9 MB')
    expect(row(table, 'Privacy exports kept for download')).toHaveTextContent('1 file12.1 KB')
    expect(row(table, 'Total')).toHaveTextContent('852.0 MB')
    expect(card.getByText(/estimated from the latest 1,000 events/)).toBeInTheDocument()
    expect(card.getByRole('link', { name: 'organization settings' })).toHaveAttribute('href', '/organizations/org1/settings')

    await userEvent.click(card.getByRole('button', { name: 'Measure again' }))
    await waitFor(() => expect(requests.filter((r) => r.url.pathname === '/api/projects/p1/storage')).toHaveLength(2))
  })

  it('says nothing is estimated when every event was measured', async () => {
    mockApi({ ...routes(), 'GET /api/projects/p1/storage': projectStorage({ events: { count: 12, bytes: 2400 }, sampled_events: 12 }) })
    renderApp('/projects/p1/settings')
    const card = within(await screen.findByRole('region', { name: 'Storage' }))
    expect(await card.findByText('12 events')).toBeInTheDocument()
    expect(card.queryByText(/estimated/)).not.toBeInTheDocument()
  })

  it('offers a retry when it cannot be measured', async () => {
    let fail = true
    mockApi({ ...routes(), 'GET /api/projects/p1/storage': () => (fail ? json({ errors: ['the database is unavailable or busy; retry shortly'] }, { status: 503 }) : json(projectStorage())) })
    renderApp('/projects/p1/settings')
    const alert = await screen.findByRole('alert', {}, { timeout: 15_000 })
    expect(alert).toHaveTextContent("Could not measure the project's storage")
    fail = false
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('table', { name: "Disk space taken by this project's data" })).toBeInTheDocument()
  })

  it('is not shown to members, nor asked for', async () => {
    const { requests } = mockApi(routes({ admin: false }))
    renderApp('/projects/p1/settings')
    expect(await screen.findByRole('region', { name: 'Rate limit' })).toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Storage' })).not.toBeInTheDocument()
    expect(requests.some((r) => r.url.pathname.endsWith('/storage'))).toBe(false)
  })
})
