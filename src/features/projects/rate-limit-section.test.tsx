import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { RateLimit } from '../../../contract/rate-limits.ts'
import { organization, project, rateLimit, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'


const routes = ({ admin = true, limit = rateLimit() }: { admin?: boolean; limit?: RateLimit } = {}) => ({
  'GET /api/user': signedInUser,
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
  'GET /api/organizations/org1/projects': [project()],
  'GET /api/projects/p1/rate_limit': limit,
})

async function replace(field: HTMLElement, value: string) {
  await userEvent.clear(field)
  if (value) {
    await userEvent.click(field)
    await userEvent.paste(value)
  }
}

const section = async () => within(await screen.findByRole('region', { name: 'Rate limit' }))

// Whole-app renders: the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('rate limit settings', { timeout: 15_000 }, () => {
  it('lets an admin set both quotas, then clear them', async () => {
    let current = rateLimit()
    const { requests } = mockApi({
      ...routes(),
      'GET /api/projects/p1/rate_limit': () => json(current),
      'PATCH /api/projects/p1/rate_limit': (request) => {
        current = { ...current, ...(request.body as Partial<RateLimit>) }
        return json(current)
      },
    })
    renderApp('/projects/p1/settings')
    const card = await section()
    const perMinute = await card.findByLabelText('Events per minute')
    const perDay = card.getByLabelText('Events per day (UTC)')
    expect(perMinute).toHaveValue('')
    expect(card.getByRole('button', { name: 'Save rate limit' })).toBeDisabled()
    await replace(perMinute, '600')
    await replace(perDay, '100,000')
    await userEvent.click(card.getByRole('button', { name: 'Save rate limit' }))
    expect(await card.findByText('Saved.')).toBeInTheDocument()
    expect(requests.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ events_per_minute: 600, events_per_day: 100_000 }])
    expect(perDay).toHaveValue('100000')

    await userEvent.click(card.getByRole('button', { name: 'Remove rate limit' }))
    await waitFor(() => expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(2))
    expect(requests.filter((r) => r.method === 'PATCH')[1]!.body).toEqual({ events_per_minute: null, events_per_day: null })
    await waitFor(() => expect(card.queryByRole('button', { name: 'Remove rate limit' })).not.toBeInTheDocument())
    expect(perMinute).toHaveValue('')
  })

  it('shows what is wrong under the field before sending, and the server’s message naming a field', async () => {
    const { requests } = mockApi({
      ...routes(),
      'PATCH /api/projects/p1/rate_limit': json({ errors: ['events_per_day: must be at most 1,000,000,000'] }, { status: 400 }),
    })
    renderApp('/projects/p1/settings')
    const card = await section()
    const perMinute = await card.findByLabelText('Events per minute')
    await replace(perMinute, '1.5')
    await userEvent.click(card.getByRole('button', { name: 'Save rate limit' }))
    expect(perMinute).toHaveAttribute('aria-invalid', 'true')
    expect(perMinute).toHaveAccessibleDescription('Events per minute must be a whole number of events, or empty for no limit.')
    expect(requests.some((r) => r.method === 'PATCH')).toBe(false)

    await replace(perMinute, '')
    expect(perMinute).not.toHaveAttribute('aria-invalid')
    const perDay = card.getByLabelText('Events per day (UTC)')
    await replace(perDay, '5000000000')
    // Checked here too; the server's own message is what a value passing here would get.
    await userEvent.click(card.getByRole('button', { name: 'Save rate limit' }))
    expect(perDay).toHaveAccessibleDescription('Events per day (UTC) must be at most 1,000,000,000.')
    await replace(perDay, '999999999')
    await userEvent.click(card.getByRole('button', { name: 'Save rate limit' }))
    await waitFor(() => expect(perDay).toHaveAttribute('aria-invalid', 'true'))
    expect(perDay).toHaveAccessibleDescription('Events per day (UTC) must be at most 1,000,000,000.')
    expect(requests.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ events_per_minute: null, events_per_day: 999_999_999 }])
  })

  it('shows members the quotas read-only, with what sampling dropped', async () => {
    mockApi(routes({ admin: false, limit: rateLimit({ events_per_day: 5000, events_today: 7200, dropped_last_24h: 1234 }) }))
    renderApp('/projects/p1/settings')
    const card = await section()
    expect(await card.findByText('5,000')).toBeInTheDocument()
    expect(card.getByText('No limit')).toBeInTheDocument()
    expect(card.getByText(/1,234 events dropped by rate limiting in the last 24 h/)).toBeInTheDocument()
    expect(card.queryByRole('textbox')).not.toBeInTheDocument()
    expect(card.queryByRole('button')).not.toBeInTheDocument()
  })

  it('shows the events received without any quota: last minute, last hour, today, busiest minute and the last 24 hours by hour', async () => {
    const hours = rateLimit().hours.map((h, i) => ({ ...h, events: i === 20 ? 1_204 : i === 23 ? 37 : 0 }))
    mockApi(routes({ limit: rateLimit({ events_last_minute: 12, events_last_hour: 37, events_today: 1_241, busiest_minute_24h: 88, hours }) }))
    renderApp('/projects/p1/settings')
    const card = await section()
    const volume = within(await card.findByRole('region', { name: 'Events received' }))
    const stat = (label: string) => volume.getByText(label).nextElementSibling?.textContent
    expect(stat('Last minute')).toBe('12')
    expect(stat('Last hour')).toBe('37')
    expect(stat('Today (UTC)')).toBe('1,241')
    expect(stat('Busiest minute, 24 h')).toBe('88')
    expect(volume.getByRole('img', { name: /^1,241 events in the last 24 hours; busiest hour \d\d:00–\d\d:00 with 1,204 events$/ })).toBeInTheDocument()
    // No quota: nothing about drops.
    expect(card.queryByText(/dropped by rate limiting/)).not.toBeInTheDocument()
    await userEvent.click(volume.getByText('Show the numbers'))
    const rows = within(volume.getByRole('table')).getAllByRole('row')
    expect(rows).toHaveLength(25)
    // Newest first: the current hour reads "…–now".
    expect(rows[1]).toHaveTextContent(/^\d\d:00–now370$/)
    expect(rows[4]).toHaveTextContent(/^\d\d:00–\d\d:001,2040$/)
  })

  it('says so when no event arrived in the last 24 hours, and shows a quota beside its count', async () => {
    mockApi(routes({ limit: rateLimit({ events_per_minute: 600, events_per_day: 10_000 }) }))
    renderApp('/projects/p1/settings')
    const volume = within(await (await section()).findByRole('region', { name: 'Events received' }))
    expect(volume.getByText('No events received in the last 24 hours.')).toBeInTheDocument()
    expect(volume.getByText('Last minute').nextElementSibling).toHaveTextContent('0 of 600')
    expect(volume.getByText('Today (UTC)').nextElementSibling).toHaveTextContent('0 of 10,000')
    expect(volume.queryByRole('img')).not.toBeInTheDocument()
  })

  it('the project’s errors page says how many events rate limiting dropped, with the way to the quota', async () => {
    mockApi({ ...routes({ limit: rateLimit({ events_per_minute: 100, dropped_last_24h: 42 }) }), 'GET /api/projects/p1/errors': [] })
    const { router } = renderApp('/projects/p1/errors')
    const notice = await screen.findByText('42 events dropped by rate limiting in the last 24 h')
    await userEvent.click(within(notice.closest('[role="status"]')! as HTMLElement).getByRole('link', { name: 'Rate limit settings' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/settings'))
    expect(await screen.findByRole('region', { name: 'Rate limit' })).toBeInTheDocument()
  })
})
