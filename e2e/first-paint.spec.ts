// The errors list's first paint (issue 19): on a page load of a project's errors list (the default
// view) the page paints the list's first rows from its first request's answer, before the app's
// code has run (src/first-paint/). Checked here on the real server: the rows are real links, sit
// where the app's rows then sit (no shift when the app takes over, with the layout-shift score
// measured), hold event data as text, and anything but the default view, or a refused request,
// keeps the plain shell.
import { expect, test, type Page } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, notify, waitForEvents, watchPage } from './support.ts'

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]
const HOSTILE_MESSAGE = '<img src=x onerror="window.__firstPaintXss=1"> & <b>bold</b>'

/** Ten errors, one with markup in its message. */
async function seed(request: Parameters<typeof Api.signIn>[0]) {
  const api = await Api.signIn(request)
  const project = await createProject(api, 'first-paint')
  const classes = Array.from({ length: 10 }, (_, i) => `FirstPaintError${String(i + 1).padStart(2, '0')}`)
  await notify(
    request,
    project.apiKey,
    classes.map((errorClass, i) =>
      simpleEvent({ errorClass, message: i === 0 ? HOSTILE_MESSAGE : undefined, releaseStage: i % 3 === 0 ? 'staging' : 'production', appVersion: `3.${i}.0` }),
    ),
  )
  await waitForEvents(api, project.projectId, 10)
  return { api, ...project, classes }
}

/** Signed in as the app keeps it (the token in localStorage), and layout shifts recorded from the start. */
async function prepare(page: Page, token: string) {
  await page.addInitScript((value) => {
    window.localStorage.setItem('errata.token', value)
    const shifts: number[] = []
    ;(window as unknown as { __shifts: number[] }).__shifts = shifts
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) shifts.push(entry.value)
      }
    }).observe({ type: 'layout-shift', buffered: true })
  }, token)
}

/** The app's code (its entry and every chunk) never arrives: the page stays as its own script left it. */
async function withoutTheApp(page: Page) {
  await page.route(/\/assets\/(?!first-paint-).*\.js$/, (route) => route.abort())
}

const shellRows = (page: Page) => page.locator('#first-paint [role="list"][aria-label="Errors"] > [role="listitem"]')
const appRows = (page: Page) => page.locator('#root [role="list"][aria-label="Errors"] > [role="listitem"]')

/** Each row's place and its class and message, in order. */
async function rowsOf(page: Page, scope: '#first-paint' | '#root') {
  return page.evaluate((scope) => {
    return [...document.querySelectorAll(`${scope} [role="list"][aria-label="Errors"] > [role="listitem"]`)]
      .map((row) => {
        const box = row.getBoundingClientRect()
        const link = row.querySelector('a')
        return {
          top: Math.round(box.top + window.scrollY),
          height: Math.round(box.height),
          errorClass: link?.textContent ?? '',
          message: row.querySelector('p[id^="error-message-"]')?.textContent ?? '',
        }
      })
      .sort((a, b) => a.top - b.top)
  }, scope)
}

test('the errors list paints its first rows from the page’s own request, where the app’s rows then sit', async ({ browser, request }) => {
  const { api, projectId, classes } = await seed(request)
  for (const viewport of VIEWPORTS) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const name = `first-paint-${viewport.width}${colorScheme === 'dark' ? '-dark' : ''}`
      // Before the app runs: the shell with the rows.
      const shellContext = await browser.newContext({ viewport, colorScheme })
      const shellPage = await shellContext.newPage()
      await prepare(shellPage, api.token)
      await withoutTheApp(shellPage)
      await shellPage.goto(`/projects/${projectId}/errors`)
      await expect(shellRows(shellPage)).toHaveCount(classes.length)
      await expect(shellPage.getByRole('heading', { name: 'first-paint: errors' })).toBeVisible()
      const shell = await rowsOf(shellPage, '#first-paint')
      await shellPage.screenshot({ path: `test-results/screenshots/${name}-shell.png` })
      // Event data is text: the markup in a message is shown, not run or parsed.
      await expect(shellPage.getByText(HOSTILE_MESSAGE, { exact: true })).toBeVisible()
      expect(await shellPage.locator('#first-paint img[src="x"], #first-paint b').count()).toBe(0)
      await shellContext.close()

      // The app's page, from a load of its own: the shell goes when the app has rendered.
      const appContext = await browser.newContext({ viewport, colorScheme })
      const appPage = await appContext.newPage()
      const watched = watchPage(appPage)
      await prepare(appPage, api.token)
      await appPage.goto(`/projects/${projectId}/errors`)
      await expect(appPage.locator('#first-paint')).toHaveCount(0)
      await expect(appRows(appPage).getByRole('link', { name: classes[0], exact: true })).toBeVisible()
      await expect(appRows(appPage).getByRole('checkbox').first()).toBeVisible()
      const app = await rowsOf(appPage, '#root')
      // The rows the app shows (it renders those in and near the window) are where the shell had them, with the same texts.
      expect(app.length).toBeGreaterThanOrEqual(5)
      expect(shell.slice(0, app.length), `rows at ${viewport.width}px`).toEqual(app)
      const shifts = await appPage.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts)
      const score = shifts.reduce((sum, value) => sum + value, 0)
      test.info().annotations.push({ type: `layout shift ${viewport.width}px ${colorScheme}`, description: score.toFixed(4) })
      expect(score, `cumulative layout shift at ${viewport.width}px, ${colorScheme}`).toBeLessThan(0.01)
      await appPage.screenshot({ path: `test-results/screenshots/${name}-app.png` })
      expect(watched.pageErrors).toEqual([])
      expect(await appPage.evaluate(() => (window as unknown as { __firstPaintXss?: number }).__firstPaintXss)).toBeUndefined()
      await appContext.close()
    }
  }
})

test('a row clicked before the app runs opens its error page', async ({ page, request }) => {
  const { api, projectId, classes } = await seed(request)
  await prepare(page, api.token)
  await withoutTheApp(page)
  await page.goto(`/projects/${projectId}/errors`)
  const errors = await api.get<{ id: string; error_class: string }[]>(`/projects/${projectId}/errors?per_page=100`)
  const target = errors.find((error) => error.error_class === classes[4])!
  await shellRows(page).getByRole('link', { name: classes[4], exact: true }).click()
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/errors/${target.id}$`))
})

test('anything but the default view, and a refused request, keep the plain shell', async ({ page, request }) => {
  const { api, projectId } = await seed(request)
  await withoutTheApp(page)
  // Another view of the list (a filter in the URL): the shell's frame is not that page's.
  await prepare(page, api.token)
  await page.goto(`/projects/${projectId}/errors?f=error.status:eq:ignored`)
  await expect(page.getByRole('status', { name: 'Loading Errata' })).toBeVisible()
  // The list's request has been answered, and still no row is painted.
  await page.waitForLoadState('networkidle')
  await expect(shellRows(page)).toHaveCount(0)

  // A token the server refuses: no rows, and with the app the sign-in page as before.
  await page.unrouteAll()
  await page.evaluate(() => window.localStorage.setItem('errata.token', 'not-a-real-token'))
  await page.addInitScript(() => window.localStorage.setItem('errata.token', 'not-a-real-token'))
  await page.goto(`/projects/${projectId}/errors`)
  await expect(page).toHaveURL(/\/login/)
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible()
  await expect(shellRows(page)).toHaveCount(0)
})
