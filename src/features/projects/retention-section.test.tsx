import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Project } from '../../../contract/projects.ts'
import { organization, project, rateLimit, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const routes = ({ admin = true, current = project() }: { admin?: boolean; current?: Project } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/projects/p1': current,
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [current],
  'GET /api/projects/p1/rate_limit': rateLimit(),
})

const section = async () => within(await screen.findByRole('region', { name: 'Data retention' }))

// Whole-app renders: the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('data retention settings', { timeout: 15_000 }, () => {
  it('lets an admin keep events for a number of days, then go back to the server default', async () => {
    let current = project()
    const { requests } = mockApi({
      ...routes(),
      'GET /api/projects/p1': () => json(current),
      'PATCH /api/projects/p1': (request) => {
        const days = (request.body as { event_retention_days: number | null }).event_retention_days
        current = { ...current, event_retention_days: days, effective_event_retention_days: days ?? current.default_event_retention_days }
        return json(current)
      },
    })
    renderApp('/projects/p1/settings')
    const card = await section()
    const byDefault = await card.findByRole('radio', { name: 'The server’s default (90 days)' })
    expect(byDefault).toBeChecked()
    const days = card.getByRole('textbox', { name: 'Days to keep events' })
    expect(days).toBeDisabled()
    expect(card.getByRole('button', { name: 'Save retention' })).toBeDisabled()

    await userEvent.click(card.getByRole('radio', { name: 'A number of days' }))
    await userEvent.clear(days)
    await userEvent.type(days, '30')
    await userEvent.click(card.getByRole('button', { name: 'Save retention' }))
    expect(await card.findByText('Saved.')).toBeInTheDocument()
    expect(requests.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ event_retention_days: 30 }])

    await userEvent.click(byDefault)
    await userEvent.click(card.getByRole('button', { name: 'Save retention' }))
    await waitFor(() => expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(2))
    expect(requests.filter((r) => r.method === 'PATCH')[1]!.body).toEqual({ event_retention_days: null })
  })

  it('says what is wrong before sending, and shows what the server refused under the field', async () => {
    const { requests } = mockApi({
      ...routes(),
      'PATCH /api/projects/p1': () => json({ errors: ['event_retention_days: must be at most 3650 days'] }, { status: 400 }),
    })
    renderApp('/projects/p1/settings')
    const card = await section()
    await userEvent.click(await card.findByRole('radio', { name: 'A number of days' }))
    const days = card.getByRole('textbox', { name: 'Days to keep events' })
    await userEvent.clear(days)
    await userEvent.type(days, 'a week')
    await userEvent.click(card.getByRole('button', { name: 'Save retention' }))
    expect(await card.findByRole('alert')).toHaveTextContent('Enter a whole number of days.')
    expect(days).toHaveAttribute('aria-invalid', 'true')
    expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(0)

    await userEvent.clear(days)
    await userEvent.type(days, '5000')
    await userEvent.click(card.getByRole('button', { name: 'Save retention' }))
    expect(await card.findByRole('alert')).toHaveTextContent('Events can be kept for at most 3,650 days.')

    await userEvent.clear(days)
    await userEvent.type(days, '365')
    await userEvent.click(card.getByRole('button', { name: 'Save retention' }))
    expect(await card.findByRole('alert')).toHaveTextContent('Days must be at most 3650 days.')
  })

  it('shows members how long events are kept, without a form', async () => {
    mockApi(routes({ admin: false, current: project({ event_retention_days: 30, effective_event_retention_days: 30 }) }))
    renderApp('/projects/p1/settings')
    const card = await section()
    expect(await card.findByText(/Events are kept for/)).toHaveTextContent('Events are kept for 30 days.')
    expect(card.queryByRole('radio')).not.toBeInTheDocument()
    expect(card.queryByRole('button')).not.toBeInTheDocument()
  })
})
