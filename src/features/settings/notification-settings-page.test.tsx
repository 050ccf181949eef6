import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { NotificationKind, NotificationSettings, ProjectNotifications } from '../../../contract/notifications.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { describeAlertLimit, formatDigestHour } from './notification-settings-page.tsx'

const me = { id: 'u1', name: 'Dana', email: 'dana@example.com', created_at: '2026-01-01T00:00:00Z' }
const checkout: ProjectNotifications = {
  project_id: 'p1',
  project_name: 'checkout-api',
  organization_id: 'o1',
  organization_name: 'Acme',
  kinds: ['new_error', 'reopened', 'assigned'],
  customized: false,
}
const web: ProjectNotifications = {
  project_id: 'p2',
  project_name: 'web-shop',
  organization_id: 'o1',
  organization_name: 'Acme',
  kinds: ['new_error', 'digest'],
  customized: true,
}
const blog: ProjectNotifications = {
  project_id: 'p3',
  project_name: 'blog',
  organization_id: 'o2',
  organization_name: 'Side projects',
  kinds: [],
  customized: true,
}
const settingsWith = (overrides: Partial<NotificationSettings> = {}): NotificationSettings => ({
  email_enabled: true,
  email: 'dana@example.com',
  alerts_per_hour: 10,
  digest_hour_utc: 9,
  projects: [checkout, web, blog],
  ...overrides,
})

/** The server's PUT: the project's new row, as the contract says (customized once changed). */
const putAnswer = (project: ProjectNotifications) => (request: MockRequest) =>
  json({ ...project, kinds: (request.body as { kinds: NotificationKind[] }).kinds, customized: true })

const puts = (requests: MockRequest[]) => requests.filter((r) => r.method === 'PUT').map((r) => [r.url.pathname, r.body])

const checkbox = (name: string) => screen.getByRole('checkbox', { name })

configure({ asyncUtilTimeout: 5_000 })
describe('notification settings page', { timeout: 15_000 }, () => {
  it('shows a loading state, then where emails go and each project’s choices by organization', async () => {
    let answer: (response: Response) => void = () => {}
    mockApi({
      'GET /api/user': me,
      'GET /api/user/notifications': () => new Promise<Response>((resolve) => (answer = resolve)),
    })
    renderApp('/settings/notifications')
    expect(await screen.findByText('Loading your notification settings')).toBeInTheDocument()
    answer(json(settingsWith()))

    expect(await within(screen.getByRole('main')).findByText('dana@example.com')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Notifications' })).toBeInTheDocument()
    expect(screen.getByText('Daily digest at 09:00 UTC.')).toBeInTheDocument()
    expect(screen.getByText('At most 10 alert emails an hour; more wait for the next digest.')).toBeInTheDocument()
    expect(screen.queryByRole('note')).not.toBeInTheDocument()

    const acme = screen.getByRole('region', { name: 'Acme' })
    expect(within(acme).getAllByRole('group')).toHaveLength(2)
    expect(within(acme).getByRole('group', { name: 'checkout-api' })).toBeInTheDocument()
    expect(within(acme).getByRole('group', { name: 'web-shop' })).toBeInTheDocument()
    expect(within(screen.getByRole('region', { name: 'Side projects' })).getByRole('group', { name: 'blog' })).toBeInTheDocument()

    // Each box is named by its kind and project, and described by what the kind means.
    expect(checkbox('New errors for checkout-api')).toBeChecked()
    expect(checkbox('Spiking errors for checkout-api')).not.toBeChecked()
    expect(checkbox('Daily digest for web-shop')).toBeChecked()
    expect(checkbox('Comments for blog')).not.toBeChecked()
    expect(checkbox('Spiking errors for checkout-api')).toHaveAccessibleDescription(
      'An error gets at least 50 events in an hour, 5 times its usual rate.',
    )
    // Reset only where the choices were changed.
    expect(screen.queryByRole('button', { name: 'Reset to defaults for checkout-api' })).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Reset to defaults for web-shop' })).toBeInTheDocument()
  })

  it('says that email is off on this server, and still lets choices be made', async () => {
    mockApi({ 'GET /api/user': me, 'GET /api/user/notifications': settingsWith({ email_enabled: false }) })
    renderApp('/settings/notifications')
    expect(await screen.findByRole('note')).toHaveTextContent(
      'Email is off on this server: your choices are kept, but nothing is sent until an admin sets up SMTP (ERRATA_SMTP_URL).',
    )
    expect(checkbox('New errors for checkout-api')).toBeEnabled()
  })

  it('saves a change at once with the project’s full new list, and says so', async () => {
    let release: () => void = () => {}
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/user/notifications': settingsWith(),
      'PUT /api/user/notifications/projects/p1': async (request) => {
        await new Promise<void>((resolve) => (release = resolve))
        return putAnswer(checkout)(request)
      },
    })
    renderApp('/settings/notifications')
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Spiking errors for checkout-api' }))

    // The box shows the change while it is saved.
    const row = screen.getByRole('group', { name: 'checkout-api' }).parentElement!
    expect(await within(row).findByText('Saving…')).toBeInTheDocument()
    expect(checkbox('Spiking errors for checkout-api')).toBeChecked()
    release()
    expect(await within(row).findByText('Saved')).toBeInTheDocument()
    expect(checkbox('Spiking errors for checkout-api')).toBeChecked()
    expect(puts(requests)).toEqual([['/api/user/notifications/projects/p1', { kinds: ['new_error', 'reopened', 'spiking', 'assigned'] }]])
    // The server's answer marks the project changed: its reset appears; the other projects are untouched.
    expect(screen.getByRole('button', { name: 'Reset to defaults for checkout-api' })).toBeInTheDocument()
    expect(checkbox('Daily digest for web-shop')).toBeChecked()
  })

  it('sends quick changes in order, each with the list so far', async () => {
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/user/notifications': settingsWith(),
      'PUT /api/user/notifications/projects/p3': putAnswer(blog),
    })
    renderApp('/settings/notifications')
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Comments for blog' }))
    await userEvent.click(checkbox('New errors for blog'))
    await userEvent.keyboard(' ')
    await waitFor(() => expect(puts(requests)).toHaveLength(3))
    expect(puts(requests).map(([, body]) => body)).toEqual([
      { kinds: ['comments'] },
      { kinds: ['new_error', 'comments'] },
      { kinds: ['comments'] },
    ])
    expect(await screen.findByText('Saved')).toBeInTheDocument()
    expect(checkbox('Comments for blog')).toBeChecked()
    expect(checkbox('New errors for blog')).not.toBeChecked()
  })

  it('shows the server’s reason when a change is refused, with the box back as saved', async () => {
    mockApi({
      'GET /api/user': me,
      'GET /api/user/notifications': settingsWith(),
      'PUT /api/user/notifications/projects/p2': json({ errors: ['kinds: must list at most 6 kinds'] }, { status: 400 }),
    })
    renderApp('/settings/notifications')
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Comments for web-shop' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Not saved: kinds: must list at most 6 kinds')
    expect(checkbox('Comments for web-shop')).not.toBeChecked()
    // The keyboard's place is kept.
    expect(checkbox('Comments for web-shop')).toHaveFocus()
  })

  it('resets a project to the defaults', async () => {
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/user/notifications': settingsWith(),
      'PUT /api/user/notifications/projects/p2': (request) =>
        json({ ...web, kinds: (request.body as { kinds: NotificationKind[] }).kinds, customized: false }),
    })
    renderApp('/settings/notifications')
    await userEvent.click(await screen.findByRole('button', { name: 'Reset to defaults for web-shop' }))
    await waitFor(() => expect(checkbox('Reopened errors for web-shop')).toBeChecked())
    expect(puts(requests)).toEqual([['/api/user/notifications/projects/p2', { kinds: ['new_error', 'reopened', 'assigned'] }]])
    expect(checkbox('Daily digest for web-shop')).not.toBeChecked()
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Reset to defaults for web-shop' })).not.toBeInTheDocument())
    // The button is gone: the focus moves to the project's first box rather than to the page.
    expect(checkbox('New errors for web-shop')).toHaveFocus()
  })

  it('says when there is no project yet', async () => {
    mockApi({ 'GET /api/user': me, 'GET /api/user/notifications': settingsWith({ projects: [] }) })
    renderApp('/settings/notifications')
    expect(await screen.findByText('You are not a member of any project yet')).toBeInTheDocument()
    expect(within(screen.getByRole('main')).getByText('dana@example.com')).toBeInTheDocument()
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument()
  })

  it('shows an error with a retry when the settings cannot be loaded', async () => {
    let fail = true
    mockApi({
      'GET /api/user': me,
      'GET /api/user/notifications': () => (fail ? json({ errors: ['database unavailable'] }, { status: 503 }) : json(settingsWith())),
    })
    renderApp('/settings/notifications')
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Could not load your notification settings')
    expect(alert).toHaveTextContent('database unavailable')
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('checkbox', { name: 'New errors for checkout-api' })).toBeChecked()
  })

  it('is reached from the header, with a tab to the personal tokens', async () => {
    mockApi({ 'GET /api/user': me, 'GET /api/user/notifications': settingsWith(), 'GET /api/user/tokens': [], 'GET /api/user/organizations': [] })
    const { router } = renderApp('/organizations')
    await userEvent.click(await screen.findByRole('link', { name: 'Your settings' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/notifications'))
    const tabs = await screen.findByRole('navigation', { name: 'Your settings' })
    expect(within(tabs).getByRole('link', { name: 'Notifications' })).toHaveAttribute('aria-current', 'page')
    await userEvent.click(within(tabs).getByRole('link', { name: 'Personal tokens' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Personal tokens' })).toBeInTheDocument()
    expect(within(screen.getByRole('navigation', { name: 'Your settings' })).getByRole('link', { name: 'Personal tokens' })).toHaveAttribute(
      'aria-current',
      'page',
    )
  })
})

describe('notification settings wording', () => {
  it('writes the digest hour and the alert limit in words', () => {
    expect(formatDigestHour(0)).toBe('00:00 UTC')
    expect(formatDigestHour(17)).toBe('17:00 UTC')
    expect(describeAlertLimit(1)).toBe('At most 1 alert email an hour; more wait for the next digest.')
    expect(describeAlertLimit(10)).toBe('At most 10 alert emails an hour; more wait for the next digest.')
  })
})
