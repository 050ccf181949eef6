import { expect, test, type Locator, type Page } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { ADMIN, Api, createProject, expectAccessible, NARROW, notify, shootAll, signIn, watchPage, WIDE } from './support.ts'

// Navigation, charts, pivots and collaborator admin as a person meets them: at 1280×800 and
// 390×844, light and dark (shootAll), with axe-core scans of each state.
const DESKTOP = { width: 1280, height: 800 }

/** Both widths: a check that must hold at 1280 and at 390 px. */
async function atBothWidths(page: Page, check: (width: number) => Promise<void>) {
  for (const size of [DESKTOP, NARROW]) {
    await page.setViewportSize(size)
    await check(size.width)
  }
  await page.setViewportSize(WIDE)
}

/** Text shown whole: not cut with an ellipsis nor scrolled. */
async function expectWhole(locator: Locator) {
  const cut = await locator.evaluate((element) => {
    const box = element.closest('span') ?? element
    return box.scrollWidth > box.clientWidth + 1
  })
  expect(cut, `${await locator.textContent()} is cut`).toBe(false)
}

test('charts say the range they draw and fit a young project’s data; errors and stability share the default range', async ({ page, request }) => {
  test.setTimeout(180_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'young-app')
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'TypeError', releaseStage: 'production', appVersion: '1.0.0', user: { id: 'u-1' } }),
    simpleEvent({ errorClass: 'TypeError', releaseStage: 'production', appVersion: '1.0.0', user: { id: 'u-2' } }),
    simpleEvent({ errorClass: 'TypeError', releaseStage: 'staging', appVersion: '1.0.1', user: { id: 'u-3' } }),
  ])
  const [error] = await api.get<{ id: string }[]>(`/projects/${projectId}/errors`)

  await page.setViewportSize(DESKTOP)
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(page.getByLabel('Time range')).toHaveValue('all')
  // The trend starts folded above the list.
  await page.getByRole('button', { name: 'Show trend' }).click()
  // "All time", drawn from the first event: minutes, not 30 days of 6-hour bars.
  const trend = page.getByRole('region', { name: /^Events/ })
  await expect(trend).toContainText(/Events · all time \(first event .*\), per minute/)
  const bars = trend.locator('.recharts-bar-rectangle path')
  await atBothWidths(page, async (width) => {
    await expect(bars.first()).toBeVisible()
    // Layout settles after a resize: the widest bar is measured until it is wide enough.
    await expect
      .poll(async () => Math.max(...(await bars.evaluateAll((paths) => paths.map((path) => path.getBoundingClientRect().width)))), {
        message: `the events’ bar is not a sliver at ${width}px`,
      })
      .toBeGreaterThan(15)
  })
  await shootAll(page, 'trend-young-project')

  // The stability page's default range is the same: all time.
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Stability' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'young-app: stability' })).toBeVisible()
  await expect(page.getByLabel('Time range')).toHaveValue('all')

  // A chosen range is named as chosen, and the part before the first event is left out.
  await page.goto(`/projects/${projectId}/errors/${error!.id}?f=event.since:eq:7d`)
  const errorTrend = page.getByRole('region', { name: /^Trend/ })
  await expect(errorTrend).toContainText(/Trend · last 7 days \(first event .*\), per minute/)
  await expect(errorTrend.getByLabel('Time range')).toHaveValue('7d')

  // A pivot value narrows this error's page (its range kept), not the project's errors list.
  const pivots = page.getByRole('region', { name: 'Pivots' })
  await atBothWidths(page, async (width) => {
    // One row, none cut or scrolled out of the panel.
    const fit = await pivots.getByRole('tablist').evaluate((list) => {
      const elements = [...list.querySelectorAll('[role="tab"]')]
      const tabs = elements.map((tab) => tab.getBoundingClientRect())
      const box = list.getBoundingClientRect()
      return {
        count: tabs.length,
        whole: elements.every((tab) => tab.scrollWidth <= tab.clientWidth),
        rows: new Set(tabs.map((tab) => Math.round(tab.top))).size,
        inside: tabs.every((tab) => tab.left >= box.left - 1 && tab.right <= box.right + 1),
        scrolls: list.scrollWidth > list.clientWidth,
      }
    })
    expect(fit, `pivot tabs at ${width}px`).toEqual({ count: 6, whole: true, rows: 1, inside: true, scrolls: false })
  })
  await pivots.getByRole('link', { name: 'Show this error’s events where Release stage is production' }).click()
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/errors/${error!.id}\\?`))
  const url = new URL(page.url())
  expect(url.searchParams.getAll('f')).toEqual(['event.since:eq:7d', 'app.release_stage:eq:production'])
  await expect(pivots.getByRole('list', { name: 'Top Release stage values' }).getByRole('listitem')).toHaveCount(1)
  await expect(errorTrend.getByRole('figure')).toHaveAccessibleName(/: 2 events/)
  // The error's events list only the matching two (of three).
  await expect(page.getByRole('region', { name: /^Events \(2\) · matching the filters/ }).getByRole('row')).toHaveCount(3)
  await shootAll(page, 'error-pivot-narrowed')
  await expectAccessible(page)
  expect(watched.pageErrors).toEqual([])
})

test('a project switcher in the header, sign-in back to the last project, readable names on phones, 404 inside the app', async ({ page, request }) => {
  test.setTimeout(180_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const suffix = Date.now().toString(36)
  const organization = await api.post<{ id: string }>('/user/organizations', { name: `Northwind Traders ${suffix}` })
  const first = await api.post<{ id: string }>(`/organizations/${organization.id}/projects`, { name: 'storefront-web', type: 'js' })
  const second = await api.post<{ id: string }>(`/organizations/${organization.id}/projects`, { name: `checkout-service-${suffix}`, type: 'node' })

  await page.setViewportSize(DESKTOP)
  await signIn(page)
  await page.goto(`/projects/${first.id}/errors`)
  await expect(page.getByRole('heading', { level: 1, name: 'storefront-web: errors' })).toBeVisible()

  // From the keyboard: open, type, arrow down, Enter.
  const switcher = page.getByRole('banner').getByRole('button', { name: 'Projects' })
  await switcher.focus()
  await page.keyboard.press('Enter')
  const panel = page.getByRole('dialog', { name: 'Switch project' })
  await expect(panel.getByRole('searchbox', { name: 'Find a project' })).toBeFocused()
  await expect(panel.getByRole('region', { name: `Northwind Traders ${suffix}` }).getByRole('link')).toHaveCount(2)
  // The project on screen is marked ("page": its errors list is the page open).
  await expect(panel.getByRole('link', { name: /storefront-web/ })).toHaveAttribute('aria-current', 'page')
  await shootAll(page, 'project-switcher-open')
  await expectAccessible(page)
  await page.keyboard.type('checkout-service')
  await expect(panel.getByRole('link')).toHaveCount(1)
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`/projects/${second.id}/errors`))
  await expect(page.getByRole('heading', { level: 1, name: `checkout-service-${suffix}: errors` })).toBeVisible()
  await expect(panel).toHaveCount(0)

  // Phones: the organization and project names whole, the project's pages without sideways scrolling.
  await page.setViewportSize(NARROW)
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' })
  await expect(crumbs.getByRole('link', { name: `Northwind Traders ${suffix}` })).toBeVisible()
  await expectWhole(crumbs.getByRole('link', { name: `Northwind Traders ${suffix}` }))
  await expectWhole(crumbs.getByRole('link', { name: `checkout-service-${suffix}` }))
  const nav = page.getByRole('navigation', { name: 'Project' })
  expect(await nav.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true)
  const more = nav.getByRole('button', { name: 'More' })
  await more.click()
  await expect(more).toHaveAttribute('aria-expanded', 'true')
  await nav.getByRole('link', { name: 'Webhooks' }).click()
  await expect(page).toHaveURL(new RegExp(`/projects/${second.id}/webhooks`))
  await expect(nav.getByRole('button', { name: /More.*current page: Webhooks/ })).toBeVisible()
  await page.setViewportSize(WIDE)
  await shootAll(page, 'project-nav-more')

  // Sign out and in again: back to the last project, not the organization picker.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(/\/login/)
  await page.getByLabel('Email').fill(ADMIN.email)
  await page.getByLabel('Password').fill(ADMIN.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(new RegExp(`/projects/${second.id}/errors`))

  // An unknown address keeps the app's header.
  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible()
  await expect(page.getByRole('banner').getByRole('button', { name: 'Projects' })).toBeVisible()
  await expect(page.getByRole('banner').getByRole('button', { name: 'Sign out' })).toBeVisible()
  await shootAll(page, 'page-not-found')
  await expectAccessible(page)
  expect(watched.pageErrors).toEqual([])
})

test('collaborators: the last admin is not offered what the server refuses; names match the words', async ({ page, request }) => {
  test.setTimeout(120_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId } = await createProject(api, 'team-app')
  await api.post(`/organizations/${organizationId}/collaborators`, { email: `pending-${Date.now().toString(36)}@example.com` })

  await page.setViewportSize(DESKTOP)
  await signIn(page)
  await page.goto(`/organizations/${organizationId}/collaborators`)
  const table = page.getByRole('table', { name: 'Collaborators' })
  const me = table.getByRole('row').filter({ hasText: ADMIN.email })
  await expect(me).toContainText('The only admin')
  await expect(me.getByRole('button', { name: /^Make member/ })).toHaveCount(0)
  await expect(me.getByRole('button', { name: /^Remove/ })).toHaveCount(0)
  // WCAG 2.5.3: the accessible name starts with the visible words.
  await expect(table.getByRole('button', { name: /^New link for pending-/ })).toBeVisible()

  await shootAll(page, 'collaborators-last-admin')
  await expectAccessible(page)
  expect(watched.pageErrors).toEqual([])
})

test('the project tab bar keeps its place from page to page, the current tab in view, where its tabs do not fit', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId } = await createProject(api, 'tab-bar')
  await signIn(page)
  // Just above phone width: every tab is in the row (no "More"), and they do not all fit.
  await page.setViewportSize({ width: 640, height: 800 })
  const tabs = page.getByRole('navigation', { name: 'Project' })
  const row = tabs.getByRole('link', { name: 'Errors' }).locator('..')
  const inView = async (name: string) => {
    const box = (await row.boundingBox())!
    const tab = (await tabs.getByRole('link', { name }).boundingBox())!
    return tab.x >= box.x - 1 && tab.x + tab.width <= box.x + box.width + 1
  }
  const pageOverflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)

  await page.goto(`/projects/${projectId}/privacy`)
  await expect(tabs.getByRole('link', { name: 'Privacy' })).toHaveAttribute('aria-current', 'page')
  await expect.poll(() => inView('Privacy')).toBe(true)
  expect(await pageOverflow()).toBeLessThanOrEqual(0)
  const scrolled = await row.evaluate((element) => element.scrollLeft)
  expect(scrolled).toBeGreaterThan(0)
  await page.screenshot({ path: 'test-results/screenshots/project-tab-bar-640-light.png' })

  // The next page's bar starts where this one was: the tab clicked stays under the pointer.
  await tabs.getByRole('link', { name: 'Webhooks' }).click()
  await expect(tabs.getByRole('link', { name: 'Webhooks' })).toHaveAttribute('aria-current', 'page')
  expect(await row.evaluate((element) => element.scrollLeft)).toBe(scrolled)
  await expect.poll(() => inView('Webhooks')).toBe(true)

  // Far back to the first tab: it comes into view.
  await row.evaluate((element) => element.scrollTo({ left: 0 }))
  await tabs.getByRole('link', { name: 'Errors' }).click()
  await expect(tabs.getByRole('link', { name: 'Errors' })).toHaveAttribute('aria-current', 'page')
  await expect.poll(() => inView('Errors')).toBe(true)
  expect(await pageOverflow()).toBeLessThanOrEqual(0)

  // On a phone the last tabs are under "More", whose list is not clipped by the row.
  await page.setViewportSize(NARROW)
  await page.emulateMedia({ colorScheme: 'dark' })
  await tabs.getByRole('button', { name: 'More' }).click()
  await expect(tabs.getByRole('link', { name: 'Webhooks' })).toBeVisible()
  await page.screenshot({ path: 'test-results/screenshots/project-tab-bar-390-dark.png' })
  expect(watched.pageErrors).toEqual([])
})
