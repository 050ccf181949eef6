import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { snoozeBookkeeping, type ErrorGroup, type ErrorStatusChange, type ReopenRules } from '../../../contract/errors.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { collaborator, errorGroup, event, project } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'


const me = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }

/** A server that keeps the error's state, so refetches after a mutation see what the PATCH did. */
function errorPageApi({
  error = errorGroup(),
  admin = true,
  patch,
  statusChanges = [],
  routes = {},
}: {
  error?: ErrorGroup
  admin?: boolean
  patch?: (request: MockRequest, current: ErrorGroup) => Response | Promise<Response>
  statusChanges?: ErrorStatusChange[]
  routes?: Parameters<typeof mockApi>[0]
} = {}) {
  let current = error
  // The states before each change, for revert_status (the server keeps them in its history).
  const before: ErrorGroup[] = []
  const api = mockApi({
    'GET /api/user': me,
    'GET /api/projects/p1': project(),
    'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
    'GET /api/organizations/org1/collaborators': [
      collaborator({ id: 'u1', name: 'Admin', email: 'admin@example.com', is_admin: admin }),
      collaborator(),
    ],
    'GET /api/projects/p1/collaborators': [
      collaborator({ id: 'u1', name: 'Admin', email: 'admin@example.com', is_admin: admin }),
      collaborator(),
      collaborator({ id: 'inv1', name: '', email: 'new@example.com', pending_invitation: true }),
    ],
    'GET /api/projects/p1/errors/e1': () => json(current),
    'GET /api/projects/p1/errors/e1/latest_event': event(),
    'GET /api/projects/p1/errors/e1/events': [event()],
    'GET /api/projects/p1/errors/e1/status_changes': statusChanges,
    'GET /api/projects/p1/errors/e1/trend': [],
    // Where a delete lands.
    'GET /api/projects/p1/errors': [],
    'PATCH /api/projects/p1/errors/e1': async (request) => {
      if ((request.body as { operation: string }).operation === 'revert_status') {
        const restored = before.pop()
        if (!restored) return json({ errors: ['Cannot revert the status: the error has no status change to revert'] }, { status: 409 })
        current = { ...current, status: restored.status, reopen_rules: restored.reopen_rules }
        return json(current)
      }
      const response = await (patch ?? defaultPatch)(request, current)
      if (response.ok && response.status === 200) {
        before.push(current)
        current = (await response.clone().json()) as ErrorGroup
      }
      return response
    },
    ...routes,
  })
  return { ...api, patches: () => api.requests.filter((r) => r.method === 'PATCH') }
}

/** What the server would answer for simple operations. */
function defaultPatch(request: MockRequest, current: ErrorGroup): Response {
  const body = request.body as { operation: string; reopen_rules?: Record<string, unknown>; assigned_collaborator_id?: string | null }
  switch (body.operation) {
    case 'fix':
      return json({ ...current, status: 'fixed', reopen_rules: null })
    case 'ignore':
      return json({ ...current, status: 'ignored', reopen_rules: null })
    case 'open':
      return json({ ...current, status: 'open', reopen_rules: null })
    case 'snooze':
      return json({
        ...current,
        status: 'snoozed',
        reopen_rules: snoozeBookkeeping(body.reopen_rules as ReopenRules, current, new Date('2026-11-22T10:00:00.000Z')),
      })
    case 'assign':
      return json({ ...current, assigned_collaborator_id: body.assigned_collaborator_id || null })
    case 'discard':
      return json({ ...current, discarded: true, discarded_at: '2026-11-22T10:00:00.000Z' })
    case 'undiscard':
      return json({ ...current, discarded: false, discarded_at: null })
    case 'link_issue':
      return json({ ...current, linked_issues: [{ type: 'url', url: (request.body as { issue_url: string }).issue_url }] })
    case 'unlink_issue':
      return json({ ...current, linked_issues: [] })
    default:
      return json({ errors: ['unexpected'] }, { status: 400 })
  }
}

const heading = () => screen.findByRole('heading', { level: 1, name: 'TypeError' })
const actions = () => screen.getByRole('toolbar', { name: 'Error actions' })
const summary = () => screen.getByRole('heading', { level: 1, name: 'TypeError' }).parentElement!

// Long user journeys on a machine shared with other test runs.
describe('error page triage', { timeout: 20_000 }, () => {
  it('fixes optimistically and rolls back with the server message when the PATCH fails', async () => {
    let release: (response: Response) => void = () => {}
    const { patches } = errorPageApi({
      patch: () => new Promise<Response>((resolve) => (release = resolve)),
    })
    renderApp('/projects/p1/errors/e1')
    await heading()
    expect(within(summary()).getByText('open')).toBeInTheDocument()

    await userEvent.click(within(actions()).getByRole('button', { name: 'Fix' }))
    // Shown as fixed before the server has answered.
    expect(await within(summary()).findByText('fixed')).toBeInTheDocument()
    // The buttons keep their places: the one for the current status is disabled, not removed.
    expect(within(actions()).getByRole('button', { name: 'Reopen' })).toBeEnabled()
    expect(within(actions()).getByRole('button', { name: 'Fix' })).toBeDisabled()
    expect(patches()).toHaveLength(1)
    expect(patches()[0]!.body).toEqual({ operation: 'fix' })

    release(json({ errors: ['database unavailable'] }, { status: 500 }))
    expect(await screen.findByText('Could not fix the error')).toBeInTheDocument()
    expect(screen.getByText('database unavailable')).toBeInTheDocument()
    expect(await within(summary()).findByText('open')).toBeInTheDocument()
    expect(within(actions()).getByRole('button', { name: 'Fix' })).toBeEnabled()
    expect(within(actions()).getByRole('button', { name: 'Reopen' })).toBeDisabled()
  })

  it('keeps a successful fix after the refetch and can reopen', async () => {
    const { patches } = errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Fix' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    // A toast (a live region) says what happened, with Undo.
    expect(await screen.findByText('Error fixed')).toBeInTheDocument()
    await userEvent.click(await within(actions()).findByRole('button', { name: 'Reopen' }))
    await waitFor(() => expect(patches()[1]?.body).toEqual({ operation: 'open' }))
    expect(await within(summary()).findByText('open')).toBeInTheDocument()
    expect(await screen.findByText('Error reopened')).toBeInTheDocument()
  })

  it('Undo in the toast asks the server to revert the change (revert_status) and shows the restored status', async () => {
    const { patches } = errorPageApi({ error: errorGroup({ status: 'ignored' }) })
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Fix' }))
    const toast = (await screen.findByText('Error fixed')).closest<HTMLElement>('[role="status"]')!
    await userEvent.click(within(toast).getByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(patches()[1]?.body).toEqual({ operation: 'revert_status' }))
    expect(await within(summary()).findByText('ignored')).toBeInTheDocument()
    expect(within(actions()).getByRole('button', { name: 'Ignore' })).toBeDisabled()
  })

  it('discards and undiscards from the bar, with the state shown and Undo in the toast', async () => {
    const { patches } = errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()
    expect(within(summary()).queryByText('discarded')).not.toBeInTheDocument()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Discard' }))
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'discard' }))
    expect(await within(summary()).findByText('discarded')).toBeInTheDocument()
    expect(await screen.findByText(/Discarded: new events are counted/)).toBeInTheDocument()
    const toast = (await screen.findByText('Error discarded')).closest<HTMLElement>('[role="status"]')!
    await userEvent.click(within(toast).getByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(patches()[1]?.body).toEqual({ operation: 'undiscard' }))
    expect(await within(actions()).findByRole('button', { name: 'Discard' })).toBeInTheDocument()
    expect(within(summary()).queryByText('discarded')).not.toBeInTheDocument()

    await userEvent.click(within(actions()).getByRole('button', { name: 'Discard' }))
    await userEvent.click(await within(actions()).findByRole('button', { name: 'Undiscard' }))
    await waitFor(() => expect(patches()[3]?.body).toEqual({ operation: 'undiscard' }))
  })

  it('links an issue by its URL (checked first), shows it as a link, and unlinks it', async () => {
    const { patches } = errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Link issue…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Link an issue' })
    const field = within(dialog).getByRole('textbox', { name: 'Issue URL' })
    await userEvent.type(field, 'tracker/12')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Link issue' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('must be an absolute http or https URL')
    expect(field).toHaveAttribute('aria-invalid', 'true')
    expect(patches()).toHaveLength(0)

    await userEvent.clear(field)
    await userEvent.type(field, 'https://tracker.example/issues/12')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Link issue' }))
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'link_issue', issue_url: 'https://tracker.example/issues/12' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(await screen.findByRole('link', { name: 'https://tracker.example/issues/12' })).toHaveAttribute('href', 'https://tracker.example/issues/12')
    expect(await screen.findByText('Error linked to an issue')).toBeInTheDocument()

    await userEvent.click(within(actions()).getByRole('button', { name: 'Unlink issue' }))
    await waitFor(() => expect(patches()[1]?.body).toEqual({ operation: 'unlink_issue' }))
    await waitFor(() => expect(screen.queryByRole('link', { name: 'https://tracker.example/issues/12' })).not.toBeInTheDocument())
    expect(within(actions()).getByRole('button', { name: 'Link issue…' })).toBeInTheDocument()
  })

  it('after a fix the next error of the list is one key away (n), and a link', async () => {
    errorPageApi({
      routes: {
        'GET /api/projects/p1/errors': [errorGroup(), errorGroup({ id: 'e2', error_class: 'RangeError' })],
        'GET /api/projects/p1/errors/e2': errorGroup({ id: 'e2', error_class: 'RangeError' }),
        'GET /api/projects/p1/errors/e2/latest_event': event(),
        'GET /api/projects/p1/errors/e2/events': [event()],
        'GET /api/projects/p1/errors/e2/status_changes': [],
        'GET /api/projects/p1/errors/e2/trend': [],
      },
    })
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Fix' }))
    expect(await within(actions()).findByRole('link', { name: 'Next error' })).toHaveAttribute('href', '/projects/p1/errors/e2')
    await userEvent.keyboard('n')
    expect(await screen.findByRole('heading', { level: 1, name: 'RangeError' })).toBeInTheDocument()
  })

  it('snooze dialog sends each rule shape and the badge says when the error comes back', async () => {
    const { patches } = errorPageApi({ error: errorGroup({ events: 100 }) })
    renderApp('/projects/p1/errors/e1')
    await heading()

    // 1. After N more events.
    await userEvent.click(within(actions()).getByRole('button', { name: 'Snooze…' }))
    let dialog = await screen.findByRole('dialog', { name: 'Snooze error' })
    expect(within(dialog).getByRole('radio', { name: 'After a number of more events' })).toBeChecked()
    const additional = within(dialog).getByRole('textbox', { name: 'Additional events' })
    await userEvent.clear(additional)
    await userEvent.type(additional, '3')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Snooze' }))
    await waitFor(() =>
      expect(patches()[0]?.body).toEqual({
        operation: 'snooze',
        reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 3 },
      }),
    )
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(await within(summary()).findByText('snoozed until 3 more events')).toBeInTheDocument()

    // 2. N events in M hours.
    await userEvent.click(within(actions()).getByRole('button', { name: 'Snooze…' }))
    dialog = await screen.findByRole('dialog', { name: 'Snooze error' })
    await userEvent.click(within(dialog).getByRole('radio', { name: 'When events happen at a rate' }))
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Events' }))
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Events' }), '50')
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Hours' }))
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Hours' }), '2')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Snooze' }))
    await waitFor(() =>
      expect(patches()[1]?.body).toEqual({
        operation: 'snooze',
        reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 50, hours: 2 },
      }),
    )
    expect(await within(summary()).findByText('snoozed until 50 events in 2 hours')).toBeInTheDocument()

    // 3. After a time period: a preset, then a custom period.
    await userEvent.click(within(actions()).getByRole('button', { name: 'Snooze…' }))
    dialog = await screen.findByRole('dialog', { name: 'Snooze error' })
    await userEvent.click(within(dialog).getByRole('radio', { name: 'After a time period' }))
    await userEvent.click(within(dialog).getByRole('radio', { name: '7 days' }))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Snooze' }))
    await waitFor(() =>
      expect(patches()[2]?.body).toEqual({ operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 604_800 } }),
    )

    await userEvent.click(within(actions()).getByRole('button', { name: 'Snooze…' }))
    dialog = await screen.findByRole('dialog', { name: 'Snooze error' })
    await userEvent.click(within(dialog).getByRole('radio', { name: 'After a time period' }))
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Custom' }))
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Custom period' }))
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Custom period' }), '90')
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Unit' }), 'minutes')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Snooze' }))
    await waitFor(() =>
      expect(patches()[3]?.body).toEqual({ operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 5_400 } }),
    )
  })

  it('refuses a snooze rule that is not a positive whole number, without a request', async () => {
    const { patches } = errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Snooze…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Snooze error' })
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Additional events' }))
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Additional events' }), '0')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Snooze' }))
    expect(within(dialog).getByRole('alert')).toHaveTextContent('at least 1')
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(patches()).toHaveLength(0)
  })

  it('assigns from the menu of project collaborators and shows the assignee', async () => {
    const { patches } = errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Assign' }))
    const menu = await screen.findByRole('menu', { name: 'Assign to' })
    // Pending invitations cannot be assigned.
    expect(within(menu).getAllByRole('menuitemradio').map((item) => item.textContent)).toEqual(['Unassign', 'Admin', 'Ada Lovelace'])
    expect(within(menu).getByRole('menuitemradio', { name: 'Unassign' })).toHaveAttribute('aria-checked', 'true')
    await userEvent.click(within(menu).getByRole('menuitemradio', { name: 'Ada Lovelace' }))
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'assign', assigned_collaborator_id: 'u2' }))
    expect(await within(actions()).findByRole('button', { name: 'Assigned to Ada Lovelace' })).toBeInTheDocument()

    // The keyboard: `a` opens the menu, arrows move, Enter chooses.
    await userEvent.keyboard('a')
    const reopened = await screen.findByRole('menu', { name: 'Assign to' })
    expect(within(reopened).getByRole('menuitemradio', { name: 'Ada Lovelace' })).toHaveFocus()
    await userEvent.keyboard('{ArrowUp}{ArrowUp}{Enter}')
    await waitFor(() => expect(patches()[1]?.body).toEqual({ operation: 'assign', assigned_collaborator_id: null }))
  })

  it('overrides the severity', async () => {
    const { patches } = errorPageApi({
      patch: (request, current) =>
        json({ ...current, severity: 'info', severity_override: (request.body as { severity: string }).severity }),
    })
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(within(actions()).getByRole('button', { name: 'Severity: error' }))
    await userEvent.click(within(await screen.findByRole('menu', { name: 'Severity' })).getByRole('menuitemradio', { name: 'info' }))
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'override_severity', severity: 'info' }))
    expect(await within(actions()).findByRole('button', { name: 'Severity: info' })).toBeInTheDocument()
  })

  it('f, i and s shortcuts act on the error; nothing fires while typing or with a modifier', async () => {
    const { patches } = errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()

    const input = document.createElement('input')
    input.setAttribute('aria-label', 'Scratch')
    document.body.append(input)
    input.focus()
    await userEvent.keyboard('fis')
    expect(input).toHaveValue('fis')
    input.blur()
    await userEvent.keyboard('{Control>}f{/Control}{Meta>}i{/Meta}')
    expect(patches()).toHaveLength(0)
    input.remove()

    await userEvent.keyboard('f')
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'fix' }))
    await userEvent.keyboard('i')
    await waitFor(() => expect(patches()[1]?.body).toEqual({ operation: 'ignore' }))
    await userEvent.keyboard('s')
    expect(await screen.findByRole('dialog', { name: 'Snooze error' })).toBeInTheDocument()
    // Letters typed in the dialog are input, not commands.
    await userEvent.keyboard('f')
    expect(patches()).toHaveLength(2)
  })

  it('? and the Keyboard shortcuts button open a panel listing every shortcut', async () => {
    errorPageApi()
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.keyboard('?')
    const panel = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })
    for (const key of ['j', 'k', 'Enter', 'x', 'f', 's', 'i', 'a', '/', '?']) {
      expect(within(panel).getByText(key, { selector: 'kbd' })).toBeInTheDocument()
    }
    expect(within(panel).getByText('Move to the next error')).toBeInTheDocument()
    expect(within(panel).getByText('Snooze…')).toBeInTheDocument()
    await userEvent.click(within(panel).getByRole('button', { name: 'Close' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())

    await userEvent.click(within(actions()).getByRole('button', { name: 'Keyboard shortcuts' }))
    expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })).toBeInTheDocument()
  })

  it('shows the status history: who did what, and automatic reopenings', async () => {
    errorPageApi({
      statusChanges: [
        {
          id: 'c3',
          error_id: 'e1',
          from_status: 'snoozed',
          to_status: 'open',
          reason: 'snooze_rule',
          actor: null,
          reopen_rules: null,
          created_at: '2026-11-22T09:00:00.000Z',
        },
        {
          id: 'c2',
          error_id: 'e1',
          from_status: 'open',
          to_status: 'snoozed',
          reason: 'operation',
          actor: { id: 'u2', name: 'Ada Lovelace', email: 'ada@example.com' },
          reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 5, hours: 1, snoozed_at: '2026-11-21T09:00:00.000Z' },
          created_at: '2026-11-21T09:00:00.000Z',
        },
        {
          id: 'c1',
          error_id: 'e1',
          from_status: 'fixed',
          to_status: 'open',
          reason: 'event',
          actor: null,
          reopen_rules: null,
          created_at: '2026-11-20T09:00:00.000Z',
        },
        {
          id: 'c0',
          error_id: 'e1',
          from_status: 'open',
          to_status: 'fixed',
          reason: 'operation',
          actor: { id: 'u2', name: 'Ada Lovelace', email: 'ada@example.com' },
          reopen_rules: null,
          created_at: '2026-11-19T09:00:00.000Z',
        },
      ],
    })
    renderApp('/projects/p1/errors/e1')
    const list = await screen.findByRole('list', { name: 'Status changes' })
    const rows = within(list).getAllByRole('listitem')
    expect(rows.map((row) => row.firstChild?.textContent)).toEqual([
      'Snooze rule met: reopened automatically',
      'Ada Lovelace snoozed this until 5 events in 1 hour',
      'Reopened automatically by a new event',
      'Ada Lovelace fixed this',
    ])
    expect(rows[3]!.querySelector('time')).toHaveAttribute('datetime', '2026-11-19T09:00:00.000Z')
  })

  it('lets an admin delete after confirming, and shows the server refusal in the dialog', async () => {
    const { patches } = errorPageApi({
      patch: () => json({ errors: ['only organization admins may delete errors'] }, { status: 403 }),
    })
    renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(await within(actions()).findByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete this error?' })
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus()
    expect(patches()).toHaveLength(0)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete error' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('only organization admins may delete errors')
    expect(patches()[0]?.body).toEqual({ operation: 'delete' })
  })

  it('keeps the trend resolution and the pivot tab in the URL', async () => {
    const { requests } = errorPageApi()
    const { router } = renderApp('/projects/p1/errors/e1?resolution=1h&pivot=app.version')
    await heading()
    const resolution = await screen.findByRole('combobox', { name: 'Resolution' })
    expect(resolution).toHaveValue('1h')
    expect(screen.getByRole('tab', { name: 'Version' })).toHaveAttribute('aria-selected', 'true')
    await waitFor(() => expect(requests.some((r) => r.url.pathname.endsWith('/pivots/app.version/values'))).toBe(true))

    await userEvent.selectOptions(resolution, '1d')
    await userEvent.click(screen.getByRole('tab', { name: 'Users' }))
    await waitFor(() => expect(router.state.location.search).toMatchObject({ resolution: '1d', pivot: 'user.id' }))
    // The defaults leave the URL.
    await userEvent.selectOptions(resolution, 'auto')
    await userEvent.click(screen.getByRole('tab', { name: 'Stage' }))
    await waitFor(() => expect(router.state.location.search).not.toHaveProperty('resolution'))
    expect(router.state.location.search).not.toHaveProperty('pivot')
  })

  it('goes back to the list after a delete', async () => {
    errorPageApi({ patch: () => new Response(null, { status: 204 }) })
    const { router } = renderApp('/projects/p1/errors/e1')
    await heading()
    await userEvent.click(await within(actions()).findByRole('button', { name: 'Delete' }))
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete error' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors'))
    // The deleted error's page was replaced in the history: Back does not lead to "Error not found".
    expect(router.history.length).toBe(1)
  })

  it('does not offer Delete to a member who is not an admin', async () => {
    errorPageApi({ admin: false })
    const { queryClient } = renderApp('/projects/p1/errors/e1')
    await heading()
    // The answer that decides is in the cache; then one task lets its observers render it.
    await waitFor(() => expect(queryClient.getQueryState(collaboratorsQuery('org1').queryKey)?.status).toBe('success'))
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)))
    expect(within(actions()).getByRole('button', { name: 'Fix' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument()
  })
})
