import { configure, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { PivotValue } from '../../../contract/pivots.ts'
import { errorGroup, event, organization, project, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = signedInUser
const userValue: PivotValue = {
  event_field_value: 'alice-1',
  events: 3,
  fields: { 'user.email': 'alice@example.com' },
  first_seen: '2026-11-20T10:00:00.000Z',
  last_seen: '2026-11-22T10:00:00.000Z',
  proportion: 1,
}

const routes = (admin: boolean) => ({
  'GET /api/user': me,
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/projects/p1': project(),
  'GET /api/projects/p1/errors/e1': errorGroup(),
  'GET /api/projects/p1/events/ev1': event({ user: { id: 'alice-1', email: 'alice@example.com', name: 'Alice' } }),
  'GET /api/projects/p1/errors/e1/events': json([]),
  'GET /api/projects/p1/pivots/user.id/values': json([userValue], { headers: { 'X-Total-Count': '1' } }),
})

configure({ asyncUtilTimeout: 6_000 })
describe('links to a user’s privacy requests', { timeout: 20_000 }, () => {
  it('the event page links admins to the organization’s privacy page with the user prefilled', async () => {
    mockApi(routes(true))
    renderApp('/projects/p1/errors/e1/events/ev1')
    const user = await screen.findByRole('region', { name: 'User' })
    expect(await within(user).findByRole('link', { name: 'Export or delete this user’s data' })).toHaveAttribute(
      'href',
      '/organizations/org1/privacy?f=user.id:eq:alice-1',
    )
  })

  it('the user pivot links each user there too', async () => {
    mockApi(routes(true))
    renderApp('/projects/p1/pivots/user.id')
    expect(await screen.findByRole('heading', { level: 1, name: 'User id values' }, { timeout: 15_000 })).toBeInTheDocument()
    expect(await screen.findByRole('link', { name: 'Privacy requests for alice-1' })).toHaveAttribute(
      'href',
      '/organizations/org1/privacy?f=user.id:eq:alice-1',
    )
  })

  it('is not offered to members, who cannot act there', async () => {
    mockApi(routes(false))
    renderApp('/projects/p1/errors/e1/events/ev1')
    const user = await screen.findByRole('region', { name: 'User' })
    expect(await within(user).findByText('alice@example.com')).toBeInTheDocument()
    expect(within(user).queryByRole('link')).not.toBeInTheDocument()
  })
})
