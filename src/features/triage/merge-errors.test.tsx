import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BulkErrorResult, ErrorGroup } from '../../../contract/errors.ts'
import { collaborator, errorGroup, event, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }
const org = { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }

/** A server that merges as the API does: the first id stays, the others leave the list. */
function mergeApi({ refuse }: { refuse?: string } = {}) {
  let current = [
    errorGroup({ id: 'e1', error_class: 'FirstError', message: 'first failure', events: 4 }),
    errorGroup({ id: 'e2', error_class: 'SecondError', message: 'second failure', events: 7 }),
    errorGroup({ id: 'e3', error_class: 'ThirdError', message: 'third failure', events: 1 }),
  ]
  const api = mockApi({
    'GET /api/user': me,
    'GET /api/projects/p1': project(),
    'GET /api/organizations/org1': org,
    'GET /api/projects/p1/collaborators': [collaborator()],
    'GET /api/projects/p1/errors': () => json(current, { headers: { 'X-Total-Count': String(current.length) } }),
    'GET /api/projects/p1/trend': [],
    'PATCH /api/projects/p1/errors': (request) => {
      if (refuse) return json({ errors: [refuse] }, { status: 409 })
      const [intoId, ...mergedIds] = (request.url.searchParams.get('error_ids') ?? '').split(',')
      const into = current.find((e) => e.id === intoId)!
      const merged = current.filter((e) => mergedIds.includes(e.id))
      const after = { ...into, events: into.events + merged.reduce((n, e) => n + e.events, 0) }
      current = current.filter((e) => !mergedIds.includes(e.id)).map((e) => (e.id === intoId ? after : e))
      const results: BulkErrorResult[] = [
        { id: intoId!, status: 'updated', error: after, errors: [] },
        ...merged.map((e): BulkErrorResult => ({ id: e.id, status: 'merged', error: { ...e, merged_into_id: intoId! }, errors: [] })),
      ]
      return json(results)
    },
  })
  return { ...api, patches: () => api.requests.filter((r) => r.method === 'PATCH') }
}

const list = () => screen.findByRole('list', { name: 'Errors' }, { timeout: 5000 })
const select = async (errorClass: string) => userEvent.click(await screen.findByRole('checkbox', { name: `Select ${errorClass}` }))

describe('merging errors', { timeout: 20_000 }, () => {
  it('merges the selected errors into the one chosen in the dialog (the first by default)', async () => {
    const { patches } = mergeApi()
    renderApp('/projects/p1/errors')
    await list()
    await select('SecondError')
    const toolbar = await screen.findByRole('toolbar', { name: 'Bulk actions' })
    // One error alone cannot be merged.
    expect(await within(toolbar).findByRole('button', { name: 'Merge…' })).toBeDisabled()
    await select('ThirdError')
    await userEvent.click(within(toolbar).getByRole('button', { name: 'Merge…' }))

    const dialog = await screen.findByRole('dialog', { name: 'Merge 2 errors' })
    const choices = within(dialog).getAllByRole('radio')
    expect(choices).toHaveLength(2)
    expect(within(dialog).getByRole('radio', { name: /SecondError/ })).toBeChecked()
    expect(within(dialog).getByText('7 events')).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('radio', { name: /ThirdError/ }))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Merge 2 errors' }))

    await waitFor(() => expect(patches()).toHaveLength(1))
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e3,e2')
    expect(patches()[0]!.body).toEqual({ operation: 'merge' })
    expect(await screen.findByText('1 error merged into ThirdError')).toBeInTheDocument()
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Errors' })).queryByRole('link', { name: 'SecondError' })).toBeNull())
    expect(screen.queryByRole('toolbar', { name: 'Bulk actions' })).not.toBeInTheDocument()
  })

  it('says why the server refused, in the dialog, and keeps it open', async () => {
    mergeApi({ refuse: 'error_ids: error e2 is already merged into error e9; unmerge it from there first' })
    renderApp('/projects/p1/errors')
    await list()
    await select('FirstError')
    await select('SecondError')
    await userEvent.click(screen.getByRole('button', { name: 'Merge…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Merge 2 errors' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Merge 2 errors' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('is already merged into error e9')
    expect(screen.getByRole('dialog', { name: 'Merge 2 errors' })).toBeInTheDocument()
  })
})

/** An error page whose error has errors merged into it, and a server that unmerges them. */
function errorPageApi(error: ErrorGroup) {
  let current = error
  const api = mockApi({
    'GET /api/user': me,
    'GET /api/projects/p1': project(),
    'GET /api/organizations/org1': org,
    'GET /api/organizations/org1/collaborators': [collaborator()],
    'GET /api/projects/p1/collaborators': [collaborator()],
    'GET /api/projects/p1/errors/e1': () => json(current),
    'GET /api/projects/p1/errors/e1/latest_event': event(),
    'GET /api/projects/p1/errors/e1/events': [event()],
    'GET /api/projects/p1/errors/e1/status_changes': [],
    'GET /api/projects/p1/errors/e1/trend': [],
    'PATCH /api/projects/p1/errors/e1': () => {
      current = { ...current, events: 4, merged_errors: [] }
      return json(current)
    },
  })
  return { ...api, patches: () => api.requests.filter((r) => r.method === 'PATCH') }
}

describe('the error page and its merged errors', { timeout: 20_000 }, () => {
  it('lists the errors merged into it and unmerges them after a confirmation', async () => {
    const { patches } = errorPageApi(
      errorGroup({
        events: 12,
        merged_errors: [{ id: 'e2', error_class: 'SecondError', message: 'second failure', events: 8, merged_at: '2026-11-22T09:00:00.000Z' }],
      }),
    )
    renderApp('/projects/p1/errors/e1')
    const section = await screen.findByRole('region', { name: 'Merged into this error' }, { timeout: 5000 })
    expect(within(section).getByRole('link', { name: 'SecondError' })).toHaveAttribute('href', '/projects/p1/errors/e2')
    expect(within(section).getByText(/8 events/)).toBeInTheDocument()

    await userEvent.click(within(section).getByRole('button', { name: 'Unmerge…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Unmerge 1 error?' })
    // Cancelling changes nothing.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(patches()).toHaveLength(0)
    await userEvent.click(within(section).getByRole('button', { name: 'Unmerge…' }))
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Unmerge 1 error' }))
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'unmerge' }))
    expect(await screen.findByText('1 error unmerged')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Merged into this error' })).toBeNull())
  })

  it('on a merged error, says where its events are and links there', async () => {
    errorPageApi(errorGroup({ merged_into_id: 'e9' }))
    renderApp('/projects/p1/errors/e1')
    const note = await screen.findByRole('note', {}, { timeout: 5000 })
    expect(note).toHaveTextContent('This error is merged into another')
    expect(within(note).getByRole('link', { name: 'Open the error it is merged into' })).toHaveAttribute('href', '/projects/p1/errors/e9')
  })
})
