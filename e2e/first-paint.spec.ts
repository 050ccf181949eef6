// The errors list's first paint (issue 19): on a page load of a project's errors list (the default
// view) the page paints the list's first rows from its first request's answer, before the app's
// code has run (src/first-paint/). Checked here on the real server: the rows are real links, sit
// where the app's rows then sit (no shift when the app takes over, with the layout-shift score
// measured), hold event data as text, and anything but the default view, or a refused request,
// keeps the plain shell.
import { expect, test, type Browser, type Page } from '@playwright/test'
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

interface Comparison {
  token: string
  path: string
  viewport: { width: number; height: number }
  colorScheme: 'light' | 'dark'
  /** Screenshots of the shell and of the app under this name (test-results/screenshots/). */
  screenshot?: string
  /** More checks of the shell's page (the app held back) and of the app's. */
  onShell?: (page: Page) => Promise<void>
  onApp?: (page: Page) => Promise<void>
}

/**
 * The page's own paint (the app's code held back), then the app's page from a load of its own:
 * the rows the app shows sit where the shell had them, with the same texts, and the hand-off
 * moves nothing (layout-shift score under 0.01).
 */
async function expectShellWhereTheAppIs(browser: Browser, options: Comparison) {
  const { viewport, colorScheme } = options
  const what = `${viewport.width}px, ${colorScheme}`
  const shellContext = await browser.newContext({ viewport, colorScheme })
  const shellPage = await shellContext.newPage()
  await prepare(shellPage, options.token)
  await withoutTheApp(shellPage)
  await shellPage.goto(options.path)
  await expect(shellRows(shellPage).first()).toBeVisible()
  const shell = await rowsOf(shellPage, '#first-paint')
  if (options.screenshot) await shellPage.screenshot({ path: `test-results/screenshots/${options.screenshot}-shell.png` })
  await options.onShell?.(shellPage)
  await shellContext.close()

  const appContext = await browser.newContext({ viewport, colorScheme })
  const appPage = await appContext.newPage()
  const watched = watchPage(appPage)
  await prepare(appPage, options.token)
  await appPage.goto(options.path)
  await expect(appPage.locator('#first-paint')).toHaveCount(0)
  await expect(appRows(appPage).getByRole('checkbox').first()).toBeVisible()
  const app = await rowsOf(appPage, '#root')
  // The rows the app shows (it renders those in and near the window) are where the shell had them, with the same texts.
  expect(app.length).toBeGreaterThanOrEqual(Math.min(5, shell.length))
  expect(shell.slice(0, app.length), `rows at ${what}`).toEqual(app)
  const shifts = await appPage.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts)
  const score = shifts.reduce((sum, value) => sum + value, 0)
  test.info().annotations.push({ type: `layout shift ${what}`, description: score.toFixed(4) })
  expect(score, `cumulative layout shift at ${what}`).toBeLessThan(0.01)
  if (options.screenshot) await appPage.screenshot({ path: `test-results/screenshots/${options.screenshot}-app.png` })
  await options.onApp?.(appPage)
  expect(watched.pageErrors).toEqual([])
  await appContext.close()
}

test('the errors list paints its first rows from the page’s own request, where the app’s rows then sit', async ({ browser, request }) => {
  const { api, projectId, classes } = await seed(request)
  for (const viewport of VIEWPORTS) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await expectShellWhereTheAppIs(browser, {
        token: api.token,
        path: `/projects/${projectId}/errors`,
        viewport,
        colorScheme,
        screenshot: `first-paint-${viewport.width}${colorScheme === 'dark' ? '-dark' : ''}`,
        onShell: async (page) => {
          await expect(shellRows(page)).toHaveCount(classes.length)
          await expect(page.getByRole('heading', { name: 'first-paint: errors' })).toBeVisible()
          // Event data is text: the markup in a message is shown, not run or parsed.
          await expect(page.getByText(HOSTILE_MESSAGE, { exact: true })).toBeVisible()
          expect(await page.locator('#first-paint img[src="x"], #first-paint b').count()).toBe(0)
        },
        onApp: async (page) => {
          await expect(appRows(page).getByRole('link', { name: classes[0], exact: true })).toBeVisible()
          expect(await page.evaluate(() => (window as unknown as { __firstPaintXss?: number }).__firstPaintXss)).toBeUndefined()
        },
      })
    }
  }
})

test('the rows sit where the app’s do between the tested widths too', async ({ browser, request }) => {
  const { api, projectId } = await seed(request)
  for (const width of [1440, 1024, 768, 640, 393, 375, 360]) {
    await expectShellWhereTheAppIs(browser, { token: api.token, path: `/projects/${projectId}/errors`, viewport: { width, height: 900 }, colorScheme: 'light' })
  }
})

test('between 397 and 639 px, where the app’s filter bar wraps differently, the plain shell stays', async ({ browser, request }) => {
  const { api, projectId } = await seed(request)
  for (const width of [412, 600]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } })
    const page = await context.newPage()
    await prepare(page, api.token)
    await withoutTheApp(page)
    await page.goto(`/projects/${projectId}/errors`)
    await expect(page.getByRole('status', { name: 'Loading Errata' })).toBeVisible()
    // Every first request answered, and still no row is painted.
    await page.waitForLoadState('networkidle')
    await expect(shellRows(page), `${width}px`).toHaveCount(0)
    await context.close()
  }
})

test('long project and organization names, and assigned errors, are painted as the app shows them', async ({ browser, request }) => {
  const api = await Api.signIn(request)
  const suffix = Date.now().toString(36)
  const organizationName = `The Northern Hemisphere Consolidated Payments and Logistics Holding Company Incorporated ${suffix} `.repeat(2).trim().slice(0, 200)
  const projectName = `ledger-reconciliation-worker-for-the-european-subsidiaries-and-their-regional-banks-${suffix}-`.repeat(3).slice(0, 200)
  const organization = await api.post<{ id: string }>('/user/organizations', { name: organizationName })
  const project = await api.post<{ id: string; api_key: string }>(`/organizations/${organization.id}/projects`, { name: projectName, type: 'js' })
  await notify(request, project.api_key, Array.from({ length: 6 }, (_, i) => simpleEvent({ errorClass: `LongNameError${i + 1}` })))
  await waitForEvents(api, project.id, 6)
  const me = await api.get<{ id: string; name: string }>('/user')
  const errors = await api.get<{ id: string }[]>(`/projects/${project.id}/errors?per_page=100`)
  for (const error of errors.slice(0, 3)) {
    const assigned = await request.patch(`/api/projects/${project.id}/errors/${error.id}`, {
      headers: { Authorization: `token ${api.token}`, 'X-Version': '2' },
      data: { operation: 'assign', assigned_collaborator_id: me.id },
    })
    expect(assigned.status(), await assigned.text()).toBe(200)
  }
  const assignees = async (page: Page, scope: '#first-paint' | '#root') =>
    page.locator(`${scope} [role="listitem"]`).filter({ hasText: `Assigned to ${me.name}` }).count()
  for (const viewport of VIEWPORTS) {
    await expectShellWhereTheAppIs(browser, {
      token: api.token,
      path: `/projects/${project.id}/errors`,
      viewport,
      colorScheme: 'light',
      screenshot: `first-paint-long-names-${viewport.width}`,
      onShell: async (page) => {
        expect(await assignees(page, '#first-paint')).toBe(3)
        await expect(page.getByRole('heading', { name: `${projectName}: errors` })).toBeVisible()
        if (viewport.width < 640) await expect(page.locator('#first-paint').getByRole('navigation', { name: 'Breadcrumbs' })).toContainText(organizationName)
      },
      onApp: async (page) => expect(await assignees(page, '#root')).toBe(3),
    })
  }
})

/** Holds the app's entry until `release` is called: the page stays as its own script left it until then. */
async function holdTheApp(page: Page) {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
    await released
    await route.continue()
  })
  return release
}

test('the app’s files are asked for once each, after the page’s API requests', async ({ page, request }) => {
  const { api, projectId, classes } = await seed(request)
  await prepare(page, api.token)
  const asked: string[] = []
  page.on('request', (sent) => asked.push(new URL(sent.url()).pathname))
  await page.goto(`/projects/${projectId}/errors`)
  await expect(appRows(page).getByRole('link', { name: classes[0], exact: true })).toBeVisible()
  await expect(page.locator('#first-paint')).toHaveCount(0)
  const scripts = asked.filter((path) => path.startsWith('/assets/') && path.endsWith('.js'))
  expect(scripts.length).toBeGreaterThan(3)
  expect(new Set(scripts).size, `asked twice: ${scripts.filter((path, i) => scripts.indexOf(path) !== i).join(', ')}`).toBe(scripts.length)
  // The early script sends its requests before it names the app's files, so the browser queues them first.
  const firstScript = asked.findIndex((path) => path.startsWith('/assets/') && path.endsWith('.js'))
  for (const path of ['/api/user', `/api/projects/${projectId}`]) {
    expect(asked.indexOf(path), path).toBeGreaterThanOrEqual(0)
    expect(asked.indexOf(path), path).toBeLessThan(firstScript)
  }
  expect(asked.findIndex((path) => path === `/api/projects/${projectId}/errors`)).toBeLessThan(firstScript)
})

/** The errors list with the app held back, its rows painted by the page; `release` lets the app in. */
async function openWithTheAppHeld(page: Page, request: Parameters<typeof seed>[0]) {
  const { api, projectId, classes } = await seed(request)
  await prepare(page, api.token)
  const release = await holdTheApp(page)
  // Not until `load`: that waits for the held entry.
  await page.goto(`/projects/${projectId}/errors`, { waitUntil: 'commit' })
  await expect(shellRows(page)).toHaveCount(classes.length)
  return release
}

test('a row focused before the app runs keeps the focus when the app takes over', async ({ page, request }) => {
  const release = await openWithTheAppHeld(page, request)
  // Tabbed into the shell: the project's tabs come first, then the rows' links.
  const target = shellRows(page).nth(2).getByRole('link')
  const name = (await target.textContent()) ?? ''
  const next = (await shellRows(page).nth(3).getByRole('link').textContent()) ?? ''
  await target.focus()
  await page.keyboard.press('Tab')
  await page.keyboard.press('Shift+Tab')
  await expect(target).toBeFocused()
  release()
  await expect(page.locator('#first-paint')).toHaveCount(0)
  const appLink = appRows(page).getByRole('link', { name, exact: true })
  await expect(appLink).toBeFocused()
  // The app's row keyboard focus follows: j moves to the next row.
  await page.keyboard.press('j')
  await expect(appRows(page).getByRole('link', { name: next, exact: true })).toBeFocused()
})

test('shortcuts pressed on the painted rows act once the app takes over', async ({ page, request }) => {
  const release = await openWithTheAppHeld(page, request)
  const names = await shellRows(page).getByRole('link').allTextContents()
  await shellRows(page).nth(1).getByRole('link').focus()
  // Two rows down, then select that row: nothing to see until the app runs.
  await page.keyboard.press('j')
  await page.keyboard.press('j')
  await page.keyboard.press('x')
  release()
  await expect(page.locator('#first-paint')).toHaveCount(0)
  const row = appRows(page).filter({ has: page.getByRole('link', { name: names[3], exact: true }) })
  await expect(row.getByRole('link')).toBeFocused()
  await expect(row.getByRole('checkbox')).toBeChecked()
  await expect(appRows(page).getByRole('checkbox', { checked: true })).toHaveCount(1)
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
