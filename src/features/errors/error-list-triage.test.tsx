import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BulkErrorResult, ErrorGroup } from '../../../contract/errors.ts'
import { collaborator, errorGroup, project } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const collaborators = [collaborator()]

/** A list server that remembers what PATCHes did, so the refetch after a mutation agrees. */
function listApi({
  errors = [
    errorGroup({ id: 'e1', error_class: 'FirstError' }),
    errorGroup({ id: 'e2', error_class: 'SecondError', assigned_collaborator_id: 'u2' }),
    errorGroup({ id: 'e3', error_class: 'ThirdError' }),
  ],
  bulk,
  byStatus = false,
}: {
  errors?: ErrorGroup[]
  bulk?: (request: MockRequest, current: ErrorGroup[]) => BulkErrorResult[] | Response | Promise<Response>
  /** Answer the list's error.status filter as the server does (otherwise every error is listed). */
  byStatus?: boolean
} = {}) {
  let current = errors
  const statusOf = (operation: string) => ({ fix: 'fixed', ignore: 'ignored', open: 'open' })[operation] as ErrorGroup['status']
  const api = mockApi({
    'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
    'GET /api/projects/p1': project({ open_error_count: 3 }),
    'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
    'GET /api/projects/p1/collaborators': collaborators,
    'GET /api/projects/p1/errors': (request) => {
      const statuses = byStatus ? request.url.searchParams.getAll('filters[error.status][][value]') : []
      const listed = current.filter((e) => statuses.length === 0 || statuses.includes(e.status))
      return json(listed, { headers: { 'X-Total-Count': String(listed.length) } })
    },
    // Ten events a day per error with the status asked for (any without a status filter).
    'GET /api/projects/p1/trend': (request) => {
      const statuses = request.url.searchParams.getAll('filters[error.status][][value]')
      const counted = current.filter((e) => statuses.length === 0 || statuses.includes(e.status))
      return json([{ events_count: 10 * counted.length, from: '2026-11-22T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' }])
    },
    'PATCH /api/projects/p1/errors': async (request) => {
      const answer = await (bulk
        ? bulk(request, current)
        : (request.url.searchParams.get('error_ids') ?? '').split(',').map((id): BulkErrorResult => {
            const error = current.find((e) => e.id === id)!
            const updated = { ...error, status: statusOf((request.body as { operation: string }).operation) }
            return { id, status: 'updated', error: updated, errors: [] }
          }))
      if (answer instanceof Response) return answer
      current = current.map((e) => answer.find((r) => r.id === e.id && r.error)?.error ?? e)
      return json(answer)
    },
    'PATCH /api/projects/p1/errors/e2': (request) => {
      const operation = (request.body as { operation: string }).operation
      current = current.map((e) => (e.id === 'e2' ? { ...e, status: statusOf(operation) } : e))
      return json(current.find((e) => e.id === 'e2'))
    },
  })
  return { ...api, patches: () => api.requests.filter((r) => r.method === 'PATCH') }
}

/** The trend above the list starts folded; these cases are about what it shows. */
const showTrend = () => window.localStorage.setItem('errata.errors-trend-collapsed', 'false')

const rowOf = async (errorClass: string) => {
  // The first render of a test file is slow (module loading), hence the generous timeout.
  const list = await screen.findByRole('list', { name: 'Errors' }, { timeout: 5000 })
  return within(list).getByRole('link', { name: new RegExp(`^${errorClass}:`) }).closest<HTMLElement>('[role="listitem"]')!
}

// Long user journeys on a machine shared with other test runs.
describe('errors list triage', { timeout: 20_000 }, () => {
  it('shows status and assignee in the rows', async () => {
    listApi({
      errors: [
        errorGroup({ id: 'e1', error_class: 'FirstError', assigned_collaborator_id: 'u2' }),
        errorGroup({
          id: 'e2',
          error_class: 'SecondError',
          status: 'snoozed',
          events: 12,
          reopen_rules: {
            reopen_if: 'n_additional_occurrences',
            additional_occurrences: 5,
            events_at_snooze: 10,
            snoozed_at: '2026-11-20T10:00:00.000Z',
          },
        }),
      ],
    })
    renderApp('/projects/p1/errors')
    expect(await within(await rowOf('FirstError')).findByText('Ada Lovelace')).toBeInTheDocument()
    expect(within(await rowOf('FirstError')).getByText('open')).toBeInTheDocument()
    expect(within(await rowOf('SecondError')).getByText('snoozed until 3 more events')).toBeInTheDocument()
  })

  it('bulk fix sends the selected error_ids, keeps the failed ones selected and says how many failed', async () => {
    const { patches } = listApi({
      bulk: (_request, current) => [
        { id: 'e1', status: 'updated', error: { ...current[0]!, status: 'fixed' }, errors: [] },
        { id: 'e3', status: 'failed', error: null, errors: ['e3: the error changed while you were looking'] },
      ],
    })
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    expect(screen.queryByRole('toolbar', { name: 'Bulk actions' })).not.toBeInTheDocument()

    await userEvent.click(screen.getByRole('checkbox', { name: 'Select FirstError' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select ThirdError' }))
    const toolbar = await screen.findByRole('toolbar', { name: 'Bulk actions' })
    expect(within(toolbar).getByText('2 errors selected')).toBeInTheDocument()
    expect(screen.getByRole('checkbox', { name: 'Select all loaded errors' })).toHaveProperty('indeterminate', true)

    await userEvent.click(within(toolbar).getByRole('button', { name: 'Fix' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e1,e3')
    expect(patches()[0]!.body).toEqual({ operation: 'fix' })

    expect(await screen.findByText('1 of 2 errors were not fixed')).toBeInTheDocument()
    expect(screen.getByText('e3: the error changed while you were looking')).toBeInTheDocument()
    await waitFor(() => expect(within(rowIn('FirstError')).getByText('fixed')).toBeInTheDocument())
    // The failed error is rolled back and stays selected for another try.
    expect(within(rowIn('ThirdError')).getByText('open')).toBeInTheDocument()
    expect(screen.getByRole('checkbox', { name: 'Select ThirdError' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Select FirstError' })).not.toBeChecked()
  })

  it('links the selected errors to one issue from the bulk bar’s More menu, checking the URL first', async () => {
    const { patches } = listApi({
      bulk: (request, current) =>
        (request.url.searchParams.get('error_ids') ?? '').split(',').map((id): BulkErrorResult => {
          const error = current.find((e) => e.id === id)!
          return { id, status: 'updated', error: { ...error, linked_issues: [{ type: 'url', url: 'https://github.com/acme/shop/issues/12' }] }, errors: [] }
        }),
    })
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select FirstError' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select SecondError' }))
    const toolbar = await screen.findByRole('toolbar', { name: 'Bulk actions' })
    await userEvent.click(within(toolbar).getByRole('button', { name: 'More' }))
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Link issue…' }))

    const dialog = await screen.findByRole('dialog', { name: 'Link an issue' })
    expect(dialog).toHaveAccessibleDescription('Paste the address of the issue that tracks these 2 errors.')
    await userEvent.type(within(dialog).getByLabelText('Issue URL'), 'not a url')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Link issue' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(/^The issue URL/)
    expect(patches()).toHaveLength(0)

    await userEvent.clear(within(dialog).getByLabelText('Issue URL'))
    await userEvent.type(within(dialog).getByLabelText('Issue URL'), 'https://github.com/acme/shop/issues/12')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Link issue' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e1,e2')
    expect(patches()[0]!.body).toEqual({ operation: 'link_issue', issue_url: 'https://github.com/acme/shop/issues/12' })
    expect(await screen.findByText(/2 errors linked to an issue/)).toBeInTheDocument()
  })

  it('reads the trend again after a bulk status change moves errors out of its status filter', async () => {
    showTrend()
    const { patches } = listApi()
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    // The default view counts the events of open errors: all three.
    expect(await screen.findByRole('figure', { name: /: 30 events$/ })).toBeInTheDocument()

    await userEvent.click(screen.getByRole('checkbox', { name: 'Select FirstError' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select ThirdError' }))
    await userEvent.click(within(await screen.findByRole('toolbar', { name: 'Bulk actions' })).getByRole('button', { name: 'Fix' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(await screen.findByRole('figure', { name: /: 10 events$/ })).toBeInTheDocument()
  })

  it('reads the trend again after a single error is fixed with f', async () => {
    showTrend()
    const { patches } = listApi()
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    expect(await screen.findByRole('figure', { name: /: 30 events$/ })).toBeInTheDocument()
    await userEvent.keyboard('jj')
    await waitFor(() => expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus())
    await userEvent.keyboard('f')
    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(patches()[0]!.url.pathname).toBe('/api/projects/p1/errors/e2')
    expect(await screen.findByRole('figure', { name: /: 20 events$/ })).toBeInTheDocument()
  })

  it('leaves a trend that no status, assignee or severity filter narrows alone after a triage change', async () => {
    showTrend()
    const { patches, requests } = listApi()
    renderApp('/projects/p1/errors?f=event.since:eq:7d')
    await rowOf('FirstError')
    expect(await screen.findByRole('figure', { name: /: 30 events$/ })).toBeInTheDocument()
    const trendRequests = () => requests.filter((r) => r.url.pathname === '/api/projects/p1/trend').length
    const listRequests = () => requests.filter((r) => r.method === 'GET' && r.url.pathname === '/api/projects/p1/errors').length
    const before = { trend: trendRequests(), list: listRequests() }

    await userEvent.click(screen.getByRole('checkbox', { name: 'Select FirstError' }))
    await userEvent.click(within(await screen.findByRole('toolbar', { name: 'Bulk actions' })).getByRole('button', { name: 'Fix' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    await waitFor(() => expect(listRequests()).toBeGreaterThan(before.list))
    await waitFor(() => expect(within(rowIn('FirstError')).getByText('fixed')).toBeInTheDocument())
    expect(trendRequests()).toBe(before.trend)
  })

  it('shows the bulk change before the server answers and rolls all of it back on a 500', async () => {
    let release: (response: Response) => void = () => {}
    const { patches } = listApi({ bulk: () => new Promise<Response>((resolve) => (release = resolve)) })
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all loaded errors' }))
    expect(within(await screen.findByRole('toolbar', { name: 'Bulk actions' })).getByText('3 errors selected')).toBeInTheDocument()
    await userEvent.click(within(await screen.findByRole('toolbar', { name: 'Bulk actions' })).getByRole('button', { name: 'Ignore' }))
    await waitFor(() => expect(within(rowIn('SecondError')).getByText('ignored')).toBeInTheDocument())
    expect(within(rowIn('FirstError')).getByText('ignored')).toBeInTheDocument()
    expect(patches()).toHaveLength(1)
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e1,e2,e3')

    release(json({ errors: ['database unavailable'] }, { status: 500 }))
    expect(await screen.findByText('Could not ignore 3 errors')).toBeInTheDocument()
    await waitFor(() => expect(within(rowIn('SecondError')).getByText('open')).toBeInTheDocument())
    expect(screen.getByRole('checkbox', { name: 'Select all loaded errors' })).toBeChecked()
  })

  /** Opens the list, moves to SecondError with j and opens it with Enter; returns the router. */
  async function openSecondWithEnter() {
    const { router } = renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.keyboard('jj')
    await waitFor(() => expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus())
    await userEvent.keyboard('{Enter}')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e2'))
    return router
  }

  it('Back from an error opened with Enter focuses its row again, and j goes on from there', async () => {
    listApi()
    const router = await openSecondWithEnter()
    router.history.back()
    await waitFor(() => expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus())
    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^ThirdError:/ })).toHaveFocus())
  })

  it('Back to a list the opened error has left focuses no other row, however soon the fresh list comes', async () => {
    listApi({ byStatus: true })
    const router = await openSecondWithEnter()
    // Fixed on its page: it leaves the open errors.
    await fetch('/api/projects/p1/errors/e2', { method: 'PATCH', body: JSON.stringify({ operation: 'fix' }), headers: { 'Content-Type': 'application/json' } })
    router.history.back()
    // The cached list shows it for a moment, then the fresh one without it, where ThirdError
    // takes its place: the focus must not go to ThirdError.
    await waitFor(() => expect(screen.queryByRole('link', { name: /^SecondError:/ })).not.toBeInTheDocument())
    for (let frame = 0; frame < 3; frame++) await new Promise((resolve) => requestAnimationFrame(resolve))
    expect(screen.getByRole('link', { name: /^ThirdError:/ })).not.toHaveFocus()
    expect(rowIn('ThirdError')).not.toHaveAttribute('aria-current', 'true')
  })

  it('a click on another row’s checkbox leaves the focus on that checkbox (the list does not scroll under the pointer)', async () => {
    listApi()
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^FirstError:/ })).toHaveFocus())

    const third = screen.getByRole('checkbox', { name: 'Select ThirdError' })
    await userEvent.click(third)
    expect(third).toBeChecked()
    // The focus-follows-a-moved-row step runs a frame later: let two frames pass.
    for (let frame = 0; frame < 2; frame++) await new Promise((resolve) => requestAnimationFrame(resolve))
    expect(third).toHaveFocus()
    expect(rowIn('ThirdError')).toHaveAttribute('aria-current', 'true')
  })

  it('j/k move the focused row, x selects it, f fixes the selection or else the focused row', async () => {
    const { patches } = listApi()
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')

    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^FirstError:/ })).toHaveFocus())
    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus())
    expect(rowIn('SecondError')).toHaveAttribute('aria-current', 'true')
    await userEvent.keyboard('k')
    await waitFor(() => expect(screen.getByRole('link', { name: /^FirstError:/ })).toHaveFocus())

    await userEvent.keyboard('x')
    expect(screen.getByRole('checkbox', { name: 'Select FirstError' })).toBeChecked()
    await userEvent.keyboard('jj')
    await waitFor(() => expect(screen.getByRole('link', { name: /^ThirdError:/ })).toHaveFocus())
    await userEvent.keyboard('x')
    expect(screen.getByRole('checkbox', { name: 'Select ThirdError' })).toBeChecked()

    // With a selection, f fixes the selection in one bulk request.
    await userEvent.keyboard('f')
    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(patches()[0]!.url.pathname).toBe('/api/projects/p1/errors')
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e1,e3')
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Select ThirdError' })).not.toBeChecked())

    // Without one, f acts on the focused row alone.
    await userEvent.keyboard('k')
    await waitFor(() => expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus())
    await userEvent.keyboard('f')
    await waitFor(() => expect(patches()).toHaveLength(2))
    expect(patches()[1]!.url.pathname).toBe('/api/projects/p1/errors/e2')
    expect(patches()[1]!.body).toEqual({ operation: 'fix' })
  })

  it('a bulk action from the toolbar (or its menu) puts the focus back on the row the user was on', async () => {
    const { patches } = listApi({
      bulk: (request, current) => {
        const body = request.body as { operation: string; assigned_collaborator_id?: string }
        return (request.url.searchParams.get('error_ids') ?? '').split(',').map((id) => {
          const error = current.find((e) => e.id === id)!
          const updated =
            body.operation === 'ignore'
              ? { ...error, status: 'ignored' as const }
              : { ...error, assigned_collaborator_id: body.assigned_collaborator_id ?? null }
          return { id, status: 'updated' as const, error: updated, errors: [] }
        })
      },
    })
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.keyboard('jj')
    await waitFor(() => expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus())
    await userEvent.keyboard('x')
    const toolbar = await screen.findByRole('toolbar', { name: 'Bulk actions' })
    await userEvent.click(within(toolbar).getByRole('button', { name: 'Ignore' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    // The toolbar went with the selection; the focus did not go with it.
    await waitFor(() => expect(screen.queryByRole('toolbar', { name: 'Bulk actions' })).not.toBeInTheDocument())
    expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus()

    // The same from the assign menu opened with `a`, which had the focus.
    await userEvent.keyboard('x')
    await userEvent.keyboard('a')
    const menu = await screen.findByRole('menu', { name: 'Assign to' })
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Ada Lovelace' }))
    await waitFor(() => expect(patches()).toHaveLength(2))
    await waitFor(() => expect(screen.queryByRole('toolbar', { name: 'Bulk actions' })).not.toBeInTheDocument())
    expect(screen.getByRole('link', { name: /^SecondError:/ })).toHaveFocus()
    expect(rowIn('SecondError')).toHaveAttribute('aria-current', 'true')
  })

  it('s snoozes the selection through the dialog; a opens the assign menu; Enter opens the focused error', async () => {
    const { patches } = listApi({
      bulk: (request, current) =>
        (request.url.searchParams.get('error_ids') ?? '').split(',').map((id) => ({
          id,
          status: 'updated' as const,
          error: { ...current.find((e) => e.id === id)!, status: 'snoozed' as const },
          errors: [],
        })),
    })
    const { router } = renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select FirstError' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select SecondError' }))

    await userEvent.keyboard('s')
    const dialog = await screen.findByRole('dialog', { name: 'Snooze 2 errors' })
    await userEvent.click(within(dialog).getByRole('radio', { name: 'After a time period' }))
    await userEvent.click(within(dialog).getByRole('radio', { name: '1 hour' }))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Snooze' }))
    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e1,e2')
    expect(patches()[0]!.body).toEqual({ operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 3600 } })

    await userEvent.click(screen.getByRole('checkbox', { name: 'Select ThirdError' }))
    await userEvent.keyboard('a')
    const menu = await screen.findByRole('menu', { name: 'Assign to' })
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Ada Lovelace' }))
    await waitFor(() => expect(patches()).toHaveLength(2))
    expect(patches()[1]!.url.searchParams.get('error_ids')).toBe('e3')
    expect(patches()[1]!.body).toEqual({ operation: 'assign', assigned_collaborator_id: 'u2' })

    // The focused row is the last one touched (ThirdError's checkbox); j stays on the last row.
    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^ThirdError:/ })).toHaveFocus())
    // Enter opens the focused row even when focus is elsewhere on the page.
    screen.getByRole('link', { name: /^ThirdError:/ }).blur()
    await userEvent.keyboard('{Enter}')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e3'))
  })

  it('ignores shortcuts while typing in the filter input, and / focuses it', async () => {
    const { patches } = listApi()
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.keyboard('j')
    await waitFor(() => expect(screen.getByRole('link', { name: /^FirstError:/ })).toHaveFocus())

    const filterInput = document.getElementById('error-filter-input')
    expect(filterInput).not.toBeNull()
    await userEvent.keyboard('/')
    expect(filterInput).toHaveFocus()
    await userEvent.keyboard('fixj')
    expect(patches()).toHaveLength(0)
    expect(screen.getByRole('checkbox', { name: 'Select FirstError' })).not.toBeChecked()
  })

  it('? opens the shortcuts panel on the list', async () => {
    listApi()
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.click(screen.getByRole('button', { name: 'Keyboard shortcuts' }))
    const panel = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })
    expect(within(panel).getByText('Select or deselect the focused error')).toBeInTheDocument()
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await userEvent.keyboard('?')
    expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })).toBeInTheDocument()
  })
})

function rowIn(errorClass: string): HTMLElement {
  return screen.getByRole('link', { name: new RegExp(`^${errorClass}:`) }).closest<HTMLElement>('[role="listitem"]')!
}

describe('errors list undo', { timeout: 20_000 }, () => {
  it('a bulk ignore shows a toast whose Undo asks the server to revert exactly the errors it changed', async () => {
    const { patches } = listApi({
      errors: [
        errorGroup({ id: 'e1', error_class: 'FirstError' }),
        errorGroup({ id: 'e2', error_class: 'SecondError', status: 'ignored' }),
        errorGroup({ id: 'e3', error_class: 'ThirdError' }),
      ],
      bulk: (request, current) => {
        const { operation } = request.body as { operation: string }
        const ids = (request.url.searchParams.get('error_ids') ?? '').split(',')
        return ids.map((id) => {
          const error = current.find((e) => e.id === id)!
          const status = operation === 'revert_status' ? 'open' : 'ignored'
          return { id, status: 'updated', error: { ...error, status }, errors: [] }
        })
      },
    })
    renderApp('/projects/p1/errors')
    await rowOf('FirstError')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all loaded errors' }))
    await userEvent.click(within(await screen.findByRole('toolbar', { name: 'Bulk actions' })).getByRole('button', { name: 'Ignore' }))
    const toast = (await screen.findByText('3 errors ignored')).closest<HTMLElement>('[role="status"]')!
    await userEvent.click(within(toast).getByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(patches()).toHaveLength(2))
    // SecondError was ignored already: the ignore changed nothing there, so nothing is reverted.
    expect(patches()[1]!.url.searchParams.get('error_ids')).toBe('e1,e3')
    expect(patches()[1]!.body).toEqual({ operation: 'revert_status' })
    await waitFor(() => expect(within(rowIn('FirstError')).getByText('open')).toBeInTheDocument())
  })
})
