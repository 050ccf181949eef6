import { configure, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { AuthToken } from '../../../contract/tokens.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { readToken } from '../../lib/token-store.ts'

/** Types a whole value at once: keystroke-by-keystroke typing is slow on a loaded machine and tests nothing more here. */
async function fill(field: HTMLElement, value: string) {
  await userEvent.click(field)
  await userEvent.paste(value)
}


const me = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }
const session: AuthToken = {
  id: 't1',
  description: 'Dashboard login',
  created_at: '2026-11-01T00:00:00.000Z',
  last_used_at: '2026-11-22T10:00:00.000Z',
  current: true,
}
const ci: AuthToken = { id: 't2', description: 'CI uploads', created_at: '2026-11-02T00:00:00.000Z', last_used_at: null, current: false }

const rowOf = async (description: string) => {
  const rows = within(await screen.findByRole('table', { name: 'Your tokens' })).getAllByRole('row')
  const row = rows.find((r) => within(r).queryByText(description))
  if (!row) throw new Error(`no row for ${description}`)
  return row
}

// Whole-app renders (route code, dialogs): the 5 s test and 1 s findBy defaults are too tight on a busy 2-core machine.
configure({ asyncUtilTimeout: 5_000 })
describe('personal tokens page', { timeout: 15_000 }, () => {
  it('lists tokens with the current session marked', async () => {
    mockApi({ 'GET /api/user': me, 'GET /api/user/tokens': [session, ci] })
    renderApp('/settings/tokens')
    const current = await rowOf('Dashboard login')
    expect(within(current).getByText('This session')).toBeInTheDocument()
    const other = await rowOf('CI uploads')
    expect(within(other).queryByText('This session')).not.toBeInTheDocument()
    expect(within(other).getByText('Never')).toBeInTheDocument()
  })

  it('creates a token and shows its secret once', async () => {
    let tokens = [session]
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/user/tokens': () => json(tokens),
      'POST /api/user/tokens': () => {
        tokens = [{ ...ci, description: 'Release script' }, session]
        return json({ ...ci, description: 'Release script', token: 'secret-abc-123' }, { status: 201 })
      },
    })
    renderApp('/settings/tokens')
    await fill(await screen.findByLabelText('Description'), 'Release script')
    await userEvent.click(screen.getByRole('button', { name: 'Create token' }))

    const secret = await screen.findByLabelText('Token “Release script”')
    expect(secret).toHaveValue('secret-abc-123')
    expect(screen.getByText(/it will not be shown again/)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Copy the new token' })).toBeInTheDocument()
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ description: 'Release script' })
    expect(await rowOf('Release script')).toBeInTheDocument()
    // The list never shows the secret; once dismissed it is gone.
    expect(within(screen.getByRole('table', { name: 'Your tokens' })).queryByText('secret-abc-123')).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'I have copied it' }))
    expect(screen.queryByDisplayValue('secret-abc-123')).not.toBeInTheDocument()
    // The button left with its panel; focus stays within the page.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('main')))
  })

  it('shows why a token could not be created', async () => {
    mockApi({
      'GET /api/user': me,
      'GET /api/user/tokens': [session],
      'POST /api/user/tokens': json({ errors: ['description: must be at most 200 characters'] }, { status: 400 }),
    })
    renderApp('/settings/tokens')
    await fill(await screen.findByLabelText('Description'), 'x')
    await userEvent.click(screen.getByRole('button', { name: 'Create token' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('description: must be at most 200 characters')
  })

  it('revokes another token after confirmation with a DELETE', async () => {
    let tokens = [session, ci]
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/user/tokens': () => json(tokens),
      'DELETE /api/user/tokens/t2': () => {
        tokens = [session]
        return new Response(null, { status: 204 })
      },
    })
    renderApp('/settings/tokens')
    await userEvent.click(within(await rowOf('CI uploads')).getByRole('button', { name: /^Revoke token CI uploads, created / }))
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the token “CI uploads”?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }))
    await waitFor(() => expect(screen.queryByText('CI uploads')).not.toBeInTheDocument())
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.url.pathname)).toEqual(['/api/user/tokens/t2'])
    expect(readToken()).toBe('test-token')
  })

  it('warns that revoking the current token signs out, then goes to the login page', async () => {
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/user/tokens': [session, ci],
      'DELETE /api/user/tokens/t1': new Response(null, { status: 204 }),
    })
    const { router } = renderApp('/settings/tokens')
    await userEvent.click(within(await rowOf('Dashboard login')).getByRole('button', { name: /^Revoke token Dashboard login, created / }))
    const dialog = await screen.findByRole('dialog')
    expect(dialog).toHaveTextContent('signs you out')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke and sign out' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(readToken()).toBeNull()
    expect(requests.some((r) => r.method === 'DELETE' && r.url.pathname === '/api/user/tokens/t1')).toBe(true)
  })

  it('shows an error with a retry when the tokens cannot be loaded', async () => {
    let fail = true
    mockApi({
      'GET /api/user': me,
      'GET /api/user/tokens': () => (fail ? json({ errors: ['boom'] }, { status: 500 }) : json([session])),
    })
    renderApp('/settings/tokens')
    expect(await screen.findByText('Could not load your tokens')).toBeInTheDocument()
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await rowOf('Dashboard login')).toBeInTheDocument()
  })
})
