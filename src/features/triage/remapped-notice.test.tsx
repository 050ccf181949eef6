import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BulkErrorResult, RemappedError } from '../../../contract/errors.ts'
import { collaborator, errorGroup, event, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }
const org = { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }

/** The page of error e1, whose events arrived before their map, and a server that merges. */
function errorPageApi(remapped: RemappedError | (() => Response)) {
  const e1 = errorGroup({ id: 'e1', error_class: 'TypeError', message: 'a is undefined', events: 3 })
  const e2 = errorGroup({ id: 'e2', error_class: 'TypeError', message: 'cart.items is undefined', events: 5 })
  let merged = false
  const api = mockApi({
    'GET /api/user': me,
    'GET /api/projects/p1': project(),
    'GET /api/organizations/org1': org,
    'GET /api/organizations/org1/collaborators': [collaborator()],
    'GET /api/projects/p1/collaborators': [collaborator()],
    'GET /api/projects/p1/errors/e1': () => json(merged ? { ...e1, merged_into_id: 'e2' } : e1),
    'GET /api/projects/p1/errors/e1/remapped': remapped,
    'GET /api/projects/p1/errors/e1/latest_event': event(),
    'GET /api/projects/p1/errors/e1/events': [event()],
    'GET /api/projects/p1/errors/e1/status_changes': [],
    'GET /api/projects/p1/errors/e1/trend': [],
    'GET /api/projects/p1/errors/e2': e2,
    'GET /api/projects/p1/errors/e2/remapped': { map_available: false },
    'GET /api/projects/p1/errors/e2/latest_event': event(),
    'GET /api/projects/p1/errors/e2/events': [event()],
    'GET /api/projects/p1/errors/e2/status_changes': [],
    'GET /api/projects/p1/errors/e2/trend': [],
    'PATCH /api/projects/p1/errors': () => {
      merged = true
      return json([
        { id: 'e2', status: 'updated', error: { ...e2, events: 8 }, errors: [] },
        { id: 'e1', status: 'merged', error: { ...e1, merged_into_id: 'e2' }, errors: [] },
      ] satisfies BulkErrorResult[])
    },
  })
  return { ...api, patches: () => api.requests.filter((r) => r.method === 'PATCH') }
}

const mapped = { id: 'e2', error_class: 'TypeError', message: 'cart.items is undefined', events: 5 }

describe('an error whose events arrived before their source map', { timeout: 20_000 }, () => {
  it('names the error new events group as and merges into it after a confirmation', async () => {
    const { patches, requests } = errorPageApi({ map_available: true, mapped_error: mapped })
    renderApp('/projects/p1/errors/e1')
    const note = await screen.findByRole('note', { name: 'Source map uploaded' }, { timeout: 5000 })
    expect(note).toHaveTextContent('A source map for these frames has been uploaded since these events arrived. New events group as TypeError')
    expect(within(note).getByRole('link', { name: 'TypeError' })).toHaveAttribute('href', '/projects/p1/errors/e2')

    await userEvent.click(within(note).getByRole('button', { name: 'Merge into that error…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Merge into the error new events group as?' })
    // Cancelling changes nothing.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(patches()).toHaveLength(0)
    await userEvent.click(within(note).getByRole('button', { name: 'Merge into that error…' }))
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Merge into that error' }))
    // The mapped error first: it stays.
    await waitFor(() => expect(patches()[0]?.body).toEqual({ operation: 'merge' }))
    expect(patches()[0]!.url.searchParams.get('error_ids')).toBe('e2,e1')
    expect(await screen.findByText('Merged into TypeError')).toBeInTheDocument()
    // Then the page of the error that stayed, which misses no map.
    await waitFor(() => expect(requests.some((r) => r.url.pathname === '/api/projects/p1/errors/e2/remapped')).toBe(true))
    expect(await screen.findByText('cart.items is undefined')).toBeInTheDocument()
    expect(screen.queryByRole('note', { name: 'Source map uploaded' })).toBeNull()
  })

  it('says new events will be mapped when none has grouped as the mapped frames yet', async () => {
    errorPageApi({ map_available: true, mapped_error: null })
    renderApp('/projects/p1/errors/e1')
    const note = await screen.findByRole('note', { name: 'Source map uploaded' }, { timeout: 5000 })
    expect(note).toHaveTextContent('has been uploaded since these events arrived. New events will be mapped.')
    expect(within(note).queryByRole('button')).toBeNull()
  })

  it('shows nothing when no map applies, or when the check fails', async () => {
    const { requests } = errorPageApi(() => json({ errors: ['the database is unavailable'] }, { status: 503 }))
    renderApp('/projects/p1/errors/e1')
    await screen.findByRole('heading', { name: /TypeError/ }, { timeout: 5000 })
    await waitFor(() => expect(requests.some((r) => r.url.pathname === '/api/projects/p1/errors/e1/remapped')).toBe(true))
    expect(screen.queryByRole('note', { name: 'Source map uploaded' })).toBeNull()
    expect(screen.queryByText(/database is unavailable/)).toBeNull()
  })
})
