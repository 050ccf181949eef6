import { configure, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Unsubscribe } from '../../../contract/notifications.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { describeSubscription } from './unsubscribe-page.tsx'

const newErrors: Unsubscribe = { kind: 'new_error', project_name: 'checkout-api', email: 'dana@example.com', subscribed: true }
const digest: Unsubscribe = { kind: 'digest', project_name: null, email: 'dana@example.com', subscribed: true }

/** The server's answers: POST unsubscribe and subscribe set `subscribed`. */
const linkRoutes = (link: Unsubscribe) => ({
  'POST /api/notifications/unsubscribe': () => json({ ...link, subscribed: false }),
  'POST /api/notifications/subscribe': () => json({ ...link, subscribed: true }),
})

const posts = (requests: MockRequest[]) =>
  requests.filter((r) => r.method === 'POST').map((r) => `${r.url.pathname}?token=${r.url.searchParams.get('token')}`)

configure({ asyncUtilTimeout: 5_000 })
describe('unsubscribe page', { timeout: 15_000 }, () => {
  it('unsubscribes once on arrival, signed out, even as StrictMode runs effects twice', async () => {
    const { requests } = mockApi(linkRoutes(newErrors))
    renderApp('/unsubscribe?token=tok.sig', { token: null, strict: true })
    expect(await screen.findByText(/You will no longer get/)).toHaveTextContent(
      'You will no longer get “New errors” emails for checkout-api at dana@example.com.',
    )
    expect(screen.getByRole('heading', { level: 1, name: 'Email notifications' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Choose what you get' })).toHaveAttribute('href', '/settings/notifications')
    expect(posts(requests)).toEqual(['/api/notifications/unsubscribe?token=tok.sig'])
    // No sign-in needed: nothing is asked with a session.
    expect(requests.every((r) => !r.headers.has('Authorization'))).toBe(true)
  })

  it('subscribes again, and can undo that too, keeping the focus on the button', async () => {
    const { requests } = mockApi(linkRoutes(digest))
    renderApp('/unsubscribe?token=digest-token', { token: null })
    expect(await screen.findByText(/You will no longer get/)).toHaveTextContent('You will no longer get the daily digest at dana@example.com.')
    const button = screen.getByRole('button', { name: 'Subscribe again' })
    await userEvent.click(button)
    expect(await screen.findByText(/You will get/)).toHaveTextContent('You will get the daily digest at dana@example.com again.')
    expect(screen.getByRole('button', { name: 'Unsubscribe' })).toHaveFocus()
    await userEvent.keyboard('{Enter}')
    expect(await screen.findByText(/You will no longer get/)).toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('button', { name: 'Subscribe again' })).toHaveFocus())
    expect(posts(requests)).toEqual([
      '/api/notifications/unsubscribe?token=digest-token',
      '/api/notifications/subscribe?token=digest-token',
      '/api/notifications/unsubscribe?token=digest-token',
    ])
  })

  it('says so when subscribing again fails, with the unsubscribe still shown', async () => {
    mockApi({
      ...linkRoutes(newErrors),
      'POST /api/notifications/subscribe': json({ errors: ['database unavailable'] }, { status: 503 }),
    })
    renderApp('/unsubscribe?token=t', { token: null })
    await userEvent.click(await screen.findByRole('button', { name: 'Subscribe again' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('database unavailable')
    expect(screen.getByText(/You will no longer get/)).toBeInTheDocument()
  })

  it('says a forged or damaged link is not valid', async () => {
    mockApi({
      'POST /api/notifications/unsubscribe': json(
        { errors: ['token: this unsubscribe link is not valid; choose what you get in your notification settings'] },
        { status: 400 },
      ),
    })
    renderApp('/unsubscribe?token=forged', { token: null })
    expect(await screen.findByRole('alert')).toHaveTextContent('This unsubscribe link is not valid.')
    expect(screen.getByRole('link', { name: 'Choose what you get' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Subscribe again' })).not.toBeInTheDocument()
  })

  it('offers a retry when the server could not answer', async () => {
    let fail = true
    const { requests } = mockApi({
      'POST /api/notifications/unsubscribe': () => (fail ? json({ errors: ['database unavailable'] }, { status: 503 }) : json({ ...newErrors, subscribed: false })),
    })
    renderApp('/unsubscribe?token=t', { token: null })
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not unsubscribe')
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByText(/You will no longer get/)).toBeInTheDocument()
    expect(posts(requests)).toHaveLength(2)
  })

  it('says what to do with a link without its token, and sends nothing', async () => {
    const { requests } = mockApi({})
    renderApp('/unsubscribe', { token: null })
    expect(await screen.findByRole('alert')).toHaveTextContent('This link has no token')
    expect(screen.getByRole('link', { name: 'Choose what you get' })).toBeInTheDocument()
    expect(posts(requests)).toEqual([])
  })
})

describe('describeSubscription', () => {
  it('names the kind and project, or the digest', () => {
    expect(describeSubscription({ kind: 'assigned', project_name: 'web' })).toBe('“Assigned to me” emails for web')
    expect(describeSubscription({ kind: 'digest', project_name: null })).toBe('the daily digest')
  })
})
