// Email notification settings: chosen per project from the header's "Your settings" and kept; and
// the one-click unsubscribe link of a real alert email, on a server of this spec's own with email
// on through a test SMTP server (as e2e/password-reset.spec.ts does).
import { mkdirSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import type { TestSmtpServer } from '../server/test-support/smtp-server.ts'
import { startServerWithMail, type ServerWithMail } from './server-with-mail.ts'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, expectAccessible, NARROW, notify, signIn, watchPage, WIDE } from './support.ts'

const SHOTS = '/tmp/notify-shots'

/** The page at 1280 and 390 px, light and dark, into SHOTS; it must not overflow sideways. */
async function shootAll(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true })
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    for (const viewport of [WIDE, NARROW]) {
      await page.setViewportSize(viewport)
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
          message: `${name} overflows at ${viewport.width}px`,
        })
        .toBeLessThanOrEqual(0)
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}-${colorScheme}.png`, fullPage: true })
    }
  }
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

interface Settings {
  email_enabled: boolean
  projects: { project_id: string; kinds: string[]; customized: boolean }[]
}
const kindsOf = async (api: Api, projectId: string) =>
  (await api.get<Settings>('/user/notifications')).projects.find((p) => p.project_id === projectId)?.kinds

test.describe('on the shared server (email off)', () => {
  test.use({ viewport: WIDE })

  test('choose per project what you are emailed about: saved at once, kept after a reload', async ({ page, request }) => {
    const watched = watchPage(page)
    const api = await Api.signIn(request)
    const { projectId } = await createProject(api, 'notify-web')

    await signIn(page)
    await page.getByRole('link', { name: 'Your settings' }).click()
    await expect(page).toHaveURL(/\/settings\/notifications$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Your settings' }).getByRole('link', { name: 'Notifications' })).toHaveAttribute(
      'aria-current',
      'page',
    )
    // This server has no SMTP server: the page says so, and choices are still kept.
    await expect(page.getByRole('note')).toContainText('Email is off on this server')

    const newErrors = page.getByRole('checkbox', { name: 'New errors for notify-web' })
    await expect(newErrors).toBeChecked()
    await expect(page.getByRole('button', { name: 'Reset to defaults for notify-web' })).toHaveCount(0)
    // From the keyboard: Space on the focused box.
    await newErrors.focus()
    await page.keyboard.press('Space')
    await expect(newErrors).not.toBeChecked()
    await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible()
    expect(await kindsOf(api, projectId)).toEqual(['reopened', 'assigned'])

    await page.reload()
    await expect(page.getByRole('checkbox', { name: 'New errors for notify-web' })).not.toBeChecked()
    await expect(page.getByRole('checkbox', { name: 'Reopened errors for notify-web' })).toBeChecked()
    await expect(page.getByRole('button', { name: 'Reset to defaults for notify-web' })).toBeVisible()
    await expectAccessible(page)
    await shootAll(page, 'settings-email-off')

    // Back to the defaults.
    await page.getByRole('button', { name: 'Reset to defaults for notify-web' }).click()
    await expect(page.getByRole('checkbox', { name: 'New errors for notify-web' })).toBeChecked()
    await expect(page.getByRole('button', { name: 'Reset to defaults for notify-web' })).toHaveCount(0)
    expect(await kindsOf(api, projectId)).toEqual(['new_error', 'reopened', 'assigned'])

    // The other tab of your settings.
    await page.getByRole('navigation', { name: 'Your settings' }).getByRole('link', { name: 'Personal tokens' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Personal tokens' })).toBeVisible()
    expect(watched.pageErrors).toEqual([])
  })
})

test.describe('with email on', () => {
  const ADMIN = { email: 'notify-admin@example.com', password: 'notify-password-123' }
  let mail: ServerWithMail
  let smtp: TestSmtpServer
  let baseURL: string

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    mail = await startServerWithMail(ADMIN, 'notify')
    ;({ smtp, baseURL } = mail)
  })

  test.afterAll(async () => {
    await mail?.stop()
  })

  test('a new error’s email unsubscribes in one click from its link; subscribing again undoes it', async ({ page, playwright }) => {
    test.setTimeout(120_000)
    const watched = watchPage(page)
    const request = await playwright.request.newContext({ baseURL })
    const api = await Api.signIn(request, ADMIN.email, ADMIN.password)
    const { projectId, apiKey } = await createProject(api, 'notify-mail')

    // A new error: its alert email carries the project's unsubscribe link for new errors.
    const count = smtp.received.length
    await notify(request, apiKey, [simpleEvent({ errorClass: 'NotifyMailError' })])
    const mail = await smtp.nextMail(count)
    const link = /Unsubscribe: (\S+)/.exec(mail.parsed.text ?? '')?.[1]
    expect(link, mail.parsed.text).toBeDefined()
    expect(link!.startsWith(`${baseURL}/unsubscribe?token=`)).toBe(true)

    // Opened signed out, as from a mail client: the visit itself unsubscribes.
    await page.goto(link!)
    await expect(page.getByRole('main').getByRole('status')).toHaveText(`You will no longer get “New errors” emails for notify-mail at ${ADMIN.email}.`)
    await expect.poll(() => kindsOf(api, projectId)).toEqual(['reopened', 'assigned'])
    await expectAccessible(page)
    await shootAll(page, 'unsubscribed')

    await page.getByRole('button', { name: 'Subscribe again' }).click()
    await expect(page.getByRole('main').getByRole('status')).toHaveText(`You will get “New errors” emails for notify-mail at ${ADMIN.email} again.`)
    expect(await kindsOf(api, projectId)).toEqual(['new_error', 'reopened', 'assigned'])
    await expect(page.getByRole('button', { name: 'Unsubscribe' })).toBeFocused()
    await shootAll(page, 'subscribed-again')

    // A link that was changed is refused.
    const token = new URL(link!).searchParams.get('token')!
    await page.goto(`${baseURL}/unsubscribe?token=${encodeURIComponent(`${token.split('.')[0]}.forged`)}`)
    await expect(page.getByRole('alert')).toContainText('This unsubscribe link is not valid.')
    expect(await kindsOf(api, projectId)).toEqual(['new_error', 'reopened', 'assigned'])
    await shootAll(page, 'unsubscribe-invalid')

    // "Choose what you get" asks to sign in, then opens the settings, where email is on.
    await page.goto(link!)
    await page.getByRole('link', { name: 'Choose what you get' }).click()
    await expect(page).toHaveURL(/\/login/)
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page).toHaveURL(/\/settings\/notifications$/)
    await expect(page.getByRole('checkbox', { name: 'New errors for notify-mail' })).not.toBeChecked()
    await expect(page.getByText(`Emails go to ${ADMIN.email}.`)).toBeVisible()
    await expect(page.getByRole('note')).toHaveCount(0)
    await expectAccessible(page)
    await shootAll(page, 'settings-email-on')
    expect(watched.pageErrors).toEqual([])
    await request.dispose()
  })
})
