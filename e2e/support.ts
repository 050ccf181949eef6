// Shared steps of the triage and collaborator journeys: set-up through the API (fast, and not
// what these journeys test), sign-in through the UI, ingestion through /notify, screenshots.
import AxeBuilder from '@axe-core/playwright'
import { expect, type APIRequestContext, type Page } from '@playwright/test'
import { notifyBody } from './bugsnag-payload.ts'

export const ADMIN = { email: 'admin@example.com', password: 'e2e-password-123' }
export const NARROW = { width: 390, height: 844 }
export const WIDE = { width: 1280, height: 900 }

/** A screenshot of the whole page, which must not overflow sideways at any width. */
export async function shoot(page: Page, name: string) {
  // Layout settles on the next frames; the overflow check is what must hold.
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
      message: `${name} overflows horizontally at ${page.viewportSize()?.width}px`,
    })
    .toBeLessThanOrEqual(0)
  // From the top: a page scrolled by earlier clicks would show its sticky header mid-image.
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
}

/** The page again at phone width. */
export async function shootNarrow(page: Page, name: string) {
  await page.setViewportSize(NARROW)
  await shoot(page, `${name}-narrow`)
  await page.setViewportSize(WIDE)
}

/** The app's errors list (#root): the page may paint a list of its own before the app runs, which takes no keys. */
export const errorsList = (page: Page) => page.locator('#root').getByRole('list', { name: 'Errors' })

/** The app's row of an error, by its class. */
export const rowOf = (page: Page, errorClass: string) =>
  errorsList(page)
    .getByRole('listitem')
    // The row's link is named by the class and the message ("TypeError: …").
    .filter({ has: page.getByRole('link', { name: new RegExp(`^${errorClass.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`) }) })

/** The Data Access API with one user's token. */
export class Api {
  constructor(
    readonly request: APIRequestContext,
    readonly token: string,
  ) {}

  static async signIn(request: APIRequestContext, email = ADMIN.email, password = ADMIN.password): Promise<Api> {
    const response = await request.post('/api/auth/login', { data: { email, password } })
    expect(response.status(), await response.text()).toBe(200)
    const { token } = (await response.json()) as { token: string }
    return new Api(request, token)
  }

  private headers() {
    return { Authorization: `token ${this.token}`, 'X-Version': '2' }
  }

  async get<T>(path: string): Promise<T> {
    const response = await this.request.get(`/api${path}`, { headers: this.headers() })
    expect(response.status(), `GET ${path}: ${await response.text()}`).toBe(200)
    return (await response.json()) as T
  }

  async post<T>(path: string, data: unknown): Promise<T> {
    const response = await this.request.post(`/api${path}`, { headers: this.headers(), data })
    expect(response.status(), `POST ${path}: ${await response.text()}`).toBe(201)
    return (await response.json()) as T
  }
}

/**
 * A member who signed in once, made the only way there is: an admin's invitation, accepted through
 * its link with the invitee's own name and password.
 */
export async function addMember(
  api: Api,
  organizationId: string,
  member: { email: string; name: string; password: string; project_ids?: string[] },
): Promise<void> {
  const { name, password, ...invitation } = member
  const { invitation_url } = await api.post<{ invitation_url: string }>(`/organizations/${organizationId}/collaborators`, invitation)
  const token = invitation_url.split('/').pop()!
  const response = await api.request.post(`/api/invitations/${token}/accept`, { headers: { 'X-Version': '2' }, data: { name, password } })
  expect(response.status(), await response.text()).toBe(200)
}

export interface ProjectSetup {
  organizationId: string
  projectId: string
  apiKey: string
}

/** A fresh organization with one project (names made unique so journeys never see each other's data). */
export async function createProject(api: Api, name: string): Promise<ProjectSetup> {
  const suffix = Date.now().toString(36)
  const organization = await api.post<{ id: string }>('/user/organizations', { name: `${name} org ${suffix}` })
  const project = await api.post<{ id: string; api_key: string }>(`/organizations/${organization.id}/projects`, {
    name,
    type: 'js',
  })
  return { organizationId: organization.id, projectId: project.id, apiKey: project.api_key }
}

/** Sends events through the Bugsnag notify endpoint, as a notifier would. */
export async function notify(request: APIRequestContext, apiKey: string, events: Record<string, unknown>[]) {
  const response = await request.post('/notify', {
    headers: {
      'Bugsnag-Api-Key': apiKey,
      'Bugsnag-Payload-Version': '4',
      'Bugsnag-Sent-At': new Date().toISOString(),
      'Content-Type': 'application/json',
    },
    data: notifyBody(apiKey, events),
  })
  expect(response.status(), await response.text()).toBe(200)
  await waitForIndexing(request)
}

/**
 * Waits until every accepted event is indexed: /notify answers once events are committed
 * to the ingest queue, and they show in the API a moment later (docs/ingestion.md).
 */
export async function waitForIndexing(request: APIRequestContext) {
  await expect
    .poll(async () => ((await (await request.get('/readyz')).json()) as { ingest_queue: { pending: number } }).ingest_queue.pending, {
      intervals: [20, 50, 100],
    })
    .toBe(0)
}

export interface ApiError {
  id: string
  error_class: string
  status: string
  events: number
  reopen_rules: Record<string, unknown> | null
}

/** Every error of a project (no filters: all statuses), by class. */
export async function errorsByClass(api: Api, projectId: string): Promise<Map<string, ApiError>> {
  const errors = await api.get<ApiError[]>(`/projects/${projectId}/errors?per_page=100`)
  return new Map(errors.map((error) => [error.error_class, error]))
}

/** Ingestion commits in batches: wait until the project holds this many events in all. */
export async function waitForEvents(api: Api, projectId: string, total: number) {
  await expect
    .poll(
      async () => {
        const errors = await errorsByClass(api, projectId)
        return [...errors.values()].reduce((sum, error) => sum + error.events, 0)
      },
      { message: `project ${projectId} should hold ${total} events`, timeout: 20_000 },
    )
    .toBe(total)
}

export async function signIn(page: Page, email = ADMIN.email, password = ADMIN.password) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/organizations\/?$/)
}

/**
 * Adds CSS to the page for a test's own purposes. Through the CSS object model, which the
 * server's Content-Security-Policy allows, where page.addStyleTag's inline <style> is refused.
 */
export async function addTestStyle(page: Page, css: string) {
  await page.evaluate((text) => {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(text)
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
  }, css)
}

/**
 * Fails the journey on any uncaught page error, on any Content-Security-Policy violation (the
 * server's CSP must fit everything the dashboard does; Chromium reports a blocked script, style,
 * image or request as a console error), and on any dialog an event payload could open.
 */
export function watchPage(page: Page): { pageErrors: string[]; dialogs: string[] } {
  const pageErrors: string[] = []
  const dialogs: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) pageErrors.push(`CSP violation: ${message.text()}`)
  })
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message())
    await dialog.dismiss()
  })
  return { pageErrors, dialogs }
}

/** The page at 1280 and 390 px, light and dark. */
export async function shootAll(page: Page, name: string) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const suffix = colorScheme === 'dark' ? '-dark' : ''
    await page.setViewportSize(WIDE)
    await shoot(page, `${name}${suffix}`)
    await page.setViewportSize(NARROW)
    await shoot(page, `${name}-narrow${suffix}`)
  }
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

/** No serious or critical axe-core finding (WCAG 2.1 AA), light and dark, as e2e/accessibility.spec.ts checks every page. */
export async function expectAccessible(page: Page) {
  await addTestStyle(page, '*, *::before, *::after { transition: none !important; animation: none !important; }')
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
    const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
    expect(blocking, colorScheme).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}
