// "Forgot password" end to end: an Errata server of this spec's own, with email on through a real
// SMTP server the spec starts, so the link is read from the email the way a person would open it.
import { mkdirSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import type { TestSmtpServer } from '../server/test-support/smtp-server.ts'
import { startServerWithMail, type ServerWithMail } from './server-with-mail.ts'

const ADMIN = 'reset-admin@example.com'
const OLD_PASSWORD = 'old-password-123'
const NEW_PASSWORD = 'a brand new password'
const SHOTS = '/tmp/mail-shots'

/** No serious or critical axe-core finding (WCAG 2.1 AA), light and dark, as e2e/accessibility.spec.ts checks every page. */
async function expectAccessible(page: Page, name: string) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
    const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`)
    expect(blocking, `${name}, ${colorScheme}`).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

let mail: ServerWithMail
let smtp: TestSmtpServer
let baseURL: string

test.beforeAll(async () => {
  test.setTimeout(180_000)
  mail = await startServerWithMail({ email: ADMIN, password: OLD_PASSWORD }, 'reset')
  ;({ smtp, baseURL } = mail)
})

test.afterAll(async () => {
  await mail?.stop()
})

test('forgot password: the emailed link sets a new password that signs in', async ({ page, browser }) => {
  await page.goto(`${baseURL}/login`)
  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible()
  await expect(page.getByLabel('Email')).toBeVisible()
  await expectAccessible(page, 'forgot password')
  const count = smtp.received.length
  await page.getByLabel('Email').fill(ADMIN)
  await page.getByRole('button', { name: 'Email me a link' }).click()
  await expect(page.getByText('Check your email.')).toBeVisible()

  const mail = await smtp.nextMail(count)
  expect(mail.secure).toBe(true)
  const link = /Choose a new password: (\S+)/.exec(mail.parsed.text ?? '')![1]!
  expect(link.startsWith(`${baseURL}/reset-password?token=`)).toBe(true)

  await page.goto(link)
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  await expectAccessible(page, 'reset password')
  mkdirSync(SHOTS, { recursive: true })
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.screenshot({ path: `${SHOTS}/reset-page-1280-light.png` })
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirm new password').fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Set new password' }).click()
  await page.getByRole('link', { name: 'Sign in' }).click()

  await page.getByLabel('Email').fill(ADMIN)
  await page.getByLabel('Password').fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).not.toHaveURL(/\/login/)

  // The link worked once.
  const again = await page.request.post(`${baseURL}/api/auth/password-reset/confirm`, {
    headers: { 'X-Version': '2' },
    data: { token: new URL(link).searchParams.get('token'), password: 'yet another password' },
  })
  expect(again.status()).toBe(410)

  // The reset page in dark at a phone's width, and the email's HTML part as a mail client shows it.
  const dark = await browser.newContext({ colorScheme: 'dark', viewport: { width: 390, height: 800 } })
  const phone = await dark.newPage()
  await phone.goto(`${baseURL}/reset-password?token=x`)
  await expect(phone.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  await phone.screenshot({ path: `${SHOTS}/reset-page-390-dark.png` })
  // Fresh pages: a document written into the app's page would keep the app's Content-Security-Policy.
  const darkMail = await dark.newPage()
  await darkMail.setContent(mail.parsed.html as string)
  await darkMail.screenshot({ path: `${SHOTS}/reset-email-390-dark.png`, fullPage: true })
  await dark.close()
  const light = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 800 } })
  const lightMail = await light.newPage()
  await lightMail.setContent(mail.parsed.html as string)
  await lightMail.screenshot({ path: `${SHOTS}/reset-email-1280-light.png`, fullPage: true })
  await light.close()
})

test('invitation email, as a mail client shows it', async ({ page, browser }) => {
  const login = await page.request.post(`${baseURL}/api/auth/login`, { headers: { 'X-Version': '2' }, data: { email: ADMIN, password: NEW_PASSWORD } })
  const { token } = (await login.json()) as { token: string }
  const headers = { 'X-Version': '2', Authorization: `token ${token}` }
  const organization = (await (await page.request.post(`${baseURL}/api/user/organizations`, { headers, data: { name: 'Acme <Labs> & Co' } })).json()) as { id: string }
  const count = smtp.received.length
  const invited = await page.request.post(`${baseURL}/api/organizations/${organization.id}/collaborators`, { headers, data: { email: 'new@example.com' } })
  expect(invited.status()).toBe(201)
  const mail = await smtp.nextMail(count)
  const light = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 800 } })
  const lightMail = await light.newPage()
  await lightMail.setContent(mail.parsed.html as string)
  await expect(lightMail.getByText('Join Acme <Labs> & Co on Errata')).toBeVisible()
  await lightMail.screenshot({ path: `${SHOTS}/invitation-email-1280-light.png`, fullPage: true })
  await light.close()
  const dark = await browser.newContext({ colorScheme: 'dark', viewport: { width: 390, height: 800 } })
  const phone = await dark.newPage()
  await phone.setContent(mail.parsed.html as string)
  await phone.screenshot({ path: `${SHOTS}/invitation-email-390-dark.png`, fullPage: true })
  await dark.close()
})
