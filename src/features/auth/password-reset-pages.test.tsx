import { configure, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

async function fill(field: HTMLElement, value: string) {
  await userEvent.click(field)
  await userEvent.paste(value)
}

configure({ asyncUtilTimeout: 5_000 })
describe('forgot password', { timeout: 15_000 }, () => {
  it('asks for a link and says to check the email', async () => {
    const { requests } = mockApi({
      'GET /api/auth/password-reset': { email_enabled: true },
      'POST /api/auth/password-reset': new Response(null, { status: 202 }),
    })
    renderApp('/forgot-password', { token: null })
    await fill(await screen.findByLabelText('Email'), 'dana@example.com')
    await userEvent.click(screen.getByRole('button', { name: 'Email me a link' }))
    expect(await screen.findByText('Check your email.')).toBeInTheDocument()
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ email: 'dana@example.com' })
  })

  it('says who can help when email is off', async () => {
    mockApi({ 'GET /api/auth/password-reset': { email_enabled: false } })
    renderApp('/forgot-password', { token: null })
    expect(await screen.findByText(/does not send email/)).toBeInTheDocument()
    expect(screen.getByText('npm run errata -- reset-password YOUR-EMAIL')).toBeInTheDocument()
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument()
  })
})

describe('reset password', { timeout: 15_000 }, () => {
  it('sets the new password with the link’s token, then offers to sign in', async () => {
    const { requests } = mockApi({ 'POST /api/auth/password-reset/confirm': new Response(null, { status: 204 }) })
    renderApp('/reset-password?token=tok-1', { token: null })
    await fill(await screen.findByLabelText('New password'), 'a long new password')
    await fill(screen.getByLabelText('Confirm new password'), 'a long new password')
    await userEvent.click(screen.getByRole('button', { name: 'Set new password' }))
    expect(await screen.findByRole('link', { name: 'Sign in' })).toBeInTheDocument()
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ token: 'tok-1', password: 'a long new password' })
  })

  it('shows why a used link fails and offers a new one', async () => {
    mockApi({
      'POST /api/auth/password-reset/confirm': json({ errors: ['token: this link was already used; ask for a new one on the sign-in page'] }, { status: 410 }),
    })
    renderApp('/reset-password?token=used', { token: null })
    await fill(await screen.findByLabelText('New password'), 'a long new password')
    await fill(screen.getByLabelText('Confirm new password'), 'a long new password')
    await userEvent.click(screen.getByRole('button', { name: 'Set new password' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('token: this link was already used')
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toBeInTheDocument()
  })
})
