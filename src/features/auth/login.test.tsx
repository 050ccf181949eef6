import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { readToken } from '../../lib/token-store.ts'
import { organization } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const user = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }

async function fillAndSubmit(email: string, password: string) {
  await userEvent.type(await screen.findByLabelText('Email'), email)
  await userEvent.type(screen.getByLabelText('Password'), password)
  await userEvent.click(screen.getByRole('button', { name: 'Sign in' }))
}

describe('login', () => {
  it('says when the email or password is wrong, and stays on the form', async () => {
    mockApi({ 'POST /api/auth/login': json({ errors: ['invalid email or password'] }, { status: 401 }) })
    const { router } = renderApp('/login', { token: null })
    await fillAndSubmit('admin@example.com', 'nope-nope')
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong email or password.')
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true')
    expect(router.state.location.pathname).toBe('/login')
    expect(readToken()).toBeNull()
  })

  it('shows the server’s validation messages', async () => {
    mockApi({ 'POST /api/auth/login': json({ errors: ['email: is required'] }, { status: 400 }) })
    renderApp('/login', { token: null })
    await fillAndSubmit('a@b.c', 'x')
    expect(await screen.findByRole('alert')).toHaveTextContent('email: is required')
  })

  it('says when sign-in may be tried again after too many failures', async () => {
    mockApi({
      'POST /api/auth/login': json({ errors: ['too many failed sign-ins for this email; try again in 15 minutes'] }, { status: 429, headers: { 'Retry-After': '900' } }),
    })
    renderApp('/login', { token: null })
    await fillAndSubmit('admin@example.com', 'correct-horse')
    expect(await screen.findByRole('alert')).toHaveTextContent('too many failed sign-ins for this email; try again in 15 minutes')
    expect(readToken()).toBeNull()
  })

  it('signs in, keeps the token and opens the page the user came for', async () => {
    const { requests } = mockApi({
      'POST /api/auth/login': { token: 'fresh-token', user },
      'GET /api/user': user,
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': [organization()],
    })
    const { router } = renderApp('/login?redirect=%2Forganizations', { token: null })
    await fillAndSubmit('admin@example.com', 'correct-horse')
    expect(await screen.findByRole('link', { name: /Acme Inc\./ })).toBeInTheDocument()
    expect(router.state.location.pathname).toMatch(/^\/organizations\/?$/)
    expect(readToken()).toBe('fresh-token')
    expect(requests[0]?.body).toEqual({ email: 'admin@example.com', password: 'correct-horse' })
    await waitFor(() =>
      expect(requests.find((r) => r.url.pathname === '/api/user/organizations')?.headers.get('Authorization')).toBe(
        'token fresh-token',
      ),
    )
  })

  it('ignores a redirect to another site', async () => {
    mockApi({ 'POST /api/auth/login': { token: 't', user }, 'GET /api/user': user, 'GET /api/user/organizations': [] })
    const { router } = renderApp('/login?redirect=%2F%2Fevil.example.com', { token: null })
    await fillAndSubmit('admin@example.com', 'correct-horse')
    await waitFor(() => expect(router.state.location.pathname).toMatch(/^\/organizations\/?$/))
  })

  it('ignores a redirect hidden behind a tab or newline, which browsers would read as another site', async () => {
    mockApi({ 'GET /api/user': user, 'GET /api/user/organizations': [] })
    // Already signed in: /login sends the user on at once.
    const { router } = renderApp('/login?redirect=%2F%09%2Fevil.example.com', { token: 't' })
    await waitFor(() => expect(router.state.location.pathname).toMatch(/^\/organizations\/?$/))
    expect(screen.queryByText(/Something went wrong/)).not.toBeInTheDocument()
  })
})
