// Triage journeys of issue 3 on the real server and a real browser: filters in the URL, bulk
// and keyboard fixing, a snooze rule met by new events, pivots and the trend chart.
import { expect, test } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import {
  Api,
  createProject,
  errorsByClass,
  errorsList,
  notify,
  rowOf,
  shoot,
  shootNarrow,
  signIn,
  waitForEvents,
  watchPage,
  WIDE,
} from './support.ts'

test.use({ viewport: WIDE })

test('filter the errors list through the UI; the URL restores the view', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'filters-web')
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'CheckoutTimeout', releaseStage: 'production' }),
    simpleEvent({ errorClass: 'CheckoutTimeout', releaseStage: 'production' }),
    simpleEvent({ errorClass: 'CartTypeError', releaseStage: 'staging' }),
    simpleEvent({ errorClass: 'InventoryRangeError', releaseStage: 'production' }),
    simpleEvent({ errorClass: 'ReportSyntaxError', releaseStage: 'development' }),
  ])
  await waitForEvents(api, projectId, 5)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(4)
  const chips = page.getByRole('list', { name: 'Active filters' })
  // The default view is open errors, shown as a chip that can be removed like any other.
  await expect(chips.getByRole('listitem')).toHaveText(['Status is open'])

  // `/` focuses the filter; choose a field, then one of its values (suggested from pivots).
  await page.keyboard.press('/')
  const combobox = page.getByRole('combobox', { name: 'Filter errors' })
  await expect(combobox).toBeFocused()
  // With the (scrolling) list of fields open, Tab goes on to the next control, not to the page.
  await expect(page.getByRole('listbox', { name: 'Fields' })).toBeVisible()
  await page.keyboard.press('Tab')
  await expect(page.getByRole('button', { name: 'Clear filters' })).toBeFocused()
  await combobox.focus()
  await combobox.fill('release')
  await page.getByRole('listbox', { name: 'Fields' }).getByRole('option', { name: /Release stage/ }).click()
  const values = page.getByRole('listbox', { name: 'Values of Release stage' })
  // Most events first: production (3), then the others.
  await expect(values.getByRole('option').first()).toContainText('production')
  await expect(values.getByRole('option').first()).toContainText('3 events')
  await shoot(page, 'filters-values')
  await values.getByRole('option', { name: /^production/ }).click()
  await expect(chips.getByRole('listitem')).toHaveText(['Status is open', 'Release stage is production'])
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(2)
  await expect(rowOf(page, 'CheckoutTimeout')).toBeVisible()
  await expect(rowOf(page, 'InventoryRangeError')).toBeVisible()

  // A second value of the same field is OR-ed: production or staging.
  await combobox.click()
  await page.getByRole('listbox', { name: 'Fields' }).getByRole('option', { name: /Release stage/ }).click()
  await page.getByRole('listbox', { name: 'Values of Release stage' }).getByRole('option', { name: /^staging/ }).click()
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(3)

  // The time range is a filter too (event.since), kept in the URL.
  await page.getByLabel('Time range').selectOption('7d')
  await expect(page).toHaveURL(/event\.since%3Aeq%3A7d|event\.since:eq:7d/)
  // The select follows the URL, so this waits for the new view to be shown.
  await expect(page.getByLabel('Time range')).toHaveValue('7d')
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(3)
  await shoot(page, 'filters-applied')
  await shootNarrow(page, 'filters-applied')

  // A reload (or a shared link) shows exactly the same view.
  const url = page.url()
  await page.reload()
  expect(page.url()).toBe(url)
  await expect(chips.getByRole('listitem')).toHaveText([
    'Status is open',
    'Release stage is production',
    'Release stage is staging',
  ])
  await expect(page.getByLabel('Time range')).toHaveValue('7d')
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(3)
  await expect(rowOf(page, 'ReportSyntaxError')).toHaveCount(0)

  // Removing a chip widens the list again.
  await page.getByRole('button', { name: 'Remove filter Release stage is production' }).click()
  await expect(chips.getByRole('listitem')).toHaveText(['Status is open', 'Release stage is staging'])
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(1)
  await expect(rowOf(page, 'CartTypeError')).toBeVisible()
  expect(page.url()).not.toContain('production')

  // A filter that matches nothing says so and offers a way out.
  await combobox.click()
  await page.getByRole('listbox', { name: 'Fields' }).getByRole('option', { name: /Error class/ }).click()
  await combobox.fill('NoSuchError')
  await combobox.press('Enter')
  await expect(page.getByText('No errors match these filters')).toBeVisible()
  await shoot(page, 'filters-no-match')
  await page.getByRole('button', { name: 'Show all errors' }).click()
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(4)

  expect(watched.pageErrors).toEqual([])
})

test('bulk-fix selected errors, and triage with the keyboard', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'bulk-web')
  const classes = ['AlphaError', 'BravoError', 'CharlieError', 'DeltaError', 'EchoError']
  for (const errorClass of classes) await notify(request, apiKey, [simpleEvent({ errorClass })])
  await waitForEvents(api, projectId, classes.length)

  await signIn(page)
  // All statuses, so fixed errors stay in view with their new badge.
  await page.goto(`/projects/${projectId}/errors?f=`)
  const rows = errorsList(page).getByRole('listitem')
  await expect(rows).toHaveCount(5)
  const names = (await rows.getByRole('link').allTextContents()).map((text) => text.trim())
  expect(names.sort()).toEqual([...classes].sort())
  const ordered = await rows.evaluateAll((items) =>
    items.map((item) => item.querySelector('a')?.textContent?.trim() ?? ''),
  )

  // Two rows by their checkboxes, the third with `j` (move) and `x` (select).
  await rows.nth(0).getByRole('checkbox').check()
  await rows.nth(1).getByRole('checkbox').check()
  await page.keyboard.press('j')
  await expect(rows.nth(2)).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('x')
  await expect(rows.nth(2).getByRole('checkbox')).toBeChecked()
  const toolbar = page.getByRole('toolbar', { name: 'Bulk actions' })
  await expect(toolbar).toContainText('3 errors selected')
  await shoot(page, 'bulk-selected')
  await shootNarrow(page, 'bulk-selected')

  // Far down the list (here: a short window scrolled to the end) the bulk actions stay in reach,
  // just below the app header.
  const viewport = page.viewportSize()!
  await page.setViewportSize({ width: viewport.width, height: 360 })
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
  // The list starts high (the trend folded), so the page scrolls less far than it used to.
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(100)
  const headerBottom = (await page.getByRole('banner').boundingBox())!.y + (await page.getByRole('banner').boundingBox())!.height
  await expect.poll(async () => Math.round((await toolbar.boundingBox())!.y - headerBottom)).toBeGreaterThanOrEqual(0)
  expect((await toolbar.boundingBox())!.y - headerBottom).toBeLessThan(16)
  await page.screenshot({ path: 'test-results/screenshots/bulk-toolbar-stuck.png' })
  await page.setViewportSize(viewport)

  await toolbar.getByRole('button', { name: 'Fix' }).click()
  const fixed = ordered.slice(0, 3)
  for (const errorClass of fixed) await expect(rowOf(page, errorClass)).toContainText('fixed')
  for (const errorClass of ordered.slice(3)) await expect(rowOf(page, errorClass)).toContainText('open')
  await expect(toolbar).toHaveCount(0)
  await shoot(page, 'bulk-fixed')

  // The server agrees.
  const afterBulk = await errorsByClass(api, projectId)
  expect(fixed.map((errorClass) => afterBulk.get(errorClass)?.status)).toEqual(['fixed', 'fixed', 'fixed'])
  expect(ordered.slice(3).map((errorClass) => afterBulk.get(errorClass)?.status)).toEqual(['open', 'open'])

  // `?` lists the shortcuts.
  await page.keyboard.press('?')
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
  await expect(help).toBeVisible()
  await expect(help).toContainText('Move to the next error')
  await expect(help).toContainText('Fix')
  await shoot(page, 'shortcuts-help')
  await page.keyboard.press('Escape')
  await expect(help).toBeHidden()

  // `j` / `k` move the focus; `f` fixes the focused row.
  await page.keyboard.press('j')
  await expect(rows.nth(3)).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('j')
  await expect(rows.nth(4)).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('k')
  await expect(rows.nth(3)).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('f')
  const keyed = ordered[3]!
  await expect(rowOf(page, keyed)).toContainText('fixed')
  await expect.poll(async () => (await errorsByClass(api, projectId)).get(keyed)?.status).toBe('fixed')
  expect((await errorsByClass(api, projectId)).get(ordered[4]!)?.status).toBe('open')

  // The default view (open errors) now holds only the one left open.
  await page.goto(`/projects/${projectId}/errors`)
  await expect(rows).toHaveCount(1)
  await expect(rowOf(page, ordered[4]!)).toBeVisible()

  expect(watched.pageErrors).toEqual([])
})

test('snooze with a rule; new events meet it and reopen the error', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'snooze-web')
  const event = () => simpleEvent({ errorClass: 'FlakyNetworkError', message: 'socket hang up' })
  await notify(request, apiKey, [event()])
  await waitForEvents(api, projectId, 1)
  const errorId = (await errorsByClass(api, projectId)).get('FlakyNetworkError')!.id

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors/${errorId}`)
  await expect(page.getByRole('heading', { level: 1, name: 'FlakyNetworkError' })).toBeVisible()
  const actions = page.getByRole('toolbar', { name: 'Error actions' })
  await actions.getByRole('button', { name: 'Snooze…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Snooze error' })
  await expect(dialog.getByRole('radio', { name: 'After a number of more events' })).toBeChecked()
  await dialog.getByLabel('Additional events').fill('2')
  await shoot(page, 'snooze-dialog')
  await dialog.getByRole('button', { name: 'Snooze', exact: true }).click()
  await expect(dialog).toBeHidden()

  const summary = page.locator('main')
  await expect(summary.getByText('snoozed until 2 more events').first()).toBeVisible()
  const history = page.getByRole('list', { name: 'Status changes' })
  await expect(history.getByRole('listitem').first()).toContainText('snoozed this until 2 more events')
  await shoot(page, 'snoozed')
  await shootNarrow(page, 'snoozed')

  // One more event: not yet.
  await notify(request, apiKey, [event()])
  await waitForEvents(api, projectId, 2)
  expect((await errorsByClass(api, projectId)).get('FlakyNetworkError')?.status).toBe('snoozed')
  await page.reload()
  await expect(summary.getByText('snoozed until 1 more event').first()).toBeVisible()

  // The second one meets the rule: the error is open again, by itself.
  await notify(request, apiKey, [event()])
  await waitForEvents(api, projectId, 3)
  expect((await errorsByClass(api, projectId)).get('FlakyNetworkError')?.status).toBe('open')
  await page.reload()
  await expect(page.locator('dt:text-is("Events") + dd')).toHaveText('3')
  await expect(page.getByRole('heading', { level: 1, name: 'FlakyNetworkError' }).locator('..')).toContainText('open')
  await expect(actions.getByRole('button', { name: 'Fix' })).toBeVisible()
  // The status buttons keep their places: Reopen is there, disabled, while the error is open.
  await expect(actions.getByRole('button', { name: 'Reopen' })).toBeDisabled()
  await expect(history.getByRole('listitem').first()).toContainText('Snooze rule met: reopened automatically')
  await expect(history.getByRole('listitem').nth(1)).toContainText('snoozed this until')
  await shoot(page, 'snooze-reopened')

  const changes = await api.get<{ reason: string; from_status: string; to_status: string }[]>(
    `/projects/${projectId}/errors/${errorId}/status_changes`,
  )
  expect(changes.map((c) => [c.reason, c.from_status, c.to_status])).toEqual([
    ['snooze_rule', 'snoozed', 'open'],
    ['operation', 'open', 'snoozed'],
  ])
  expect(watched.pageErrors).toEqual([])
})

test('read a pivot and narrow the error by one of its values', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'pivots-web')
  const ada = { id: 'u-ada', name: 'Ada Lovelace', email: 'ada@example.com' }
  const grace = { id: 'u-grace', name: 'Grace Hopper', email: 'grace@example.com' }
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'PaymentDeclined', releaseStage: 'production', user: ada, browserName: 'Chrome' }),
    simpleEvent({ errorClass: 'PaymentDeclined', releaseStage: 'production', user: ada, browserName: 'Chrome' }),
    simpleEvent({ errorClass: 'PaymentDeclined', releaseStage: 'production', user: grace, browserName: 'Firefox' }),
    simpleEvent({ errorClass: 'PaymentDeclined', releaseStage: 'staging', user: grace, browserName: 'Safari' }),
    simpleEvent({ errorClass: 'StagingOnlyError', releaseStage: 'staging' }),
  ])
  await waitForEvents(api, projectId, 5)
  const errorId = (await errorsByClass(api, projectId)).get('PaymentDeclined')!.id

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors/${errorId}`)
  const pivots = page.getByRole('region', { name: 'Pivots' })
  const stages = pivots.getByRole('list', { name: 'Top Release stage values' })
  await expect(stages.getByRole('listitem')).toHaveCount(2)
  await expect(stages.getByRole('listitem').nth(0)).toContainText('production')
  await expect(stages.getByRole('listitem').nth(0)).toContainText('75%')
  await expect(stages.getByRole('listitem').nth(0)).toContainText('3 events')
  await expect(stages.getByRole('listitem').nth(1)).toContainText('staging')
  await expect(stages.getByRole('listitem').nth(1)).toContainText('25%')

  // Users show by name and email beside their id.
  await pivots.getByRole('tab', { name: 'Users' }).click()
  const users = pivots.getByRole('list', { name: 'Top User id values' })
  await expect(users.getByRole('listitem')).toHaveCount(2)
  await expect(users.getByRole('listitem').nth(0)).toContainText('Ada Lovelace')
  await expect(users.getByRole('listitem').nth(0)).toContainText('u-ada')
  await expect(users.getByRole('listitem').nth(0)).toContainText('50%')
  await shoot(page, 'pivots-error')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'pivots-error-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // All values of a field on the pivot page.
  await pivots.getByRole('tab', { name: 'Browser' }).click()
  await expect(pivots.getByRole('list', { name: 'Top Browser values' }).getByRole('listitem')).toHaveCount(3)
  await pivots.getByRole('link', { name: 'See all values of Browser for this error' }).click()
  // The error's values (not the project's), saying which error they are about.
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/errors/${errorId}/pivots/device.browser_name`))
  await expect(page.getByRole('heading', { level: 1, name: 'Browser values of PaymentDeclined' })).toBeVisible()
  await expect(page.getByRole('list', { name: 'Browser values' }).getByRole('listitem')).toHaveCount(3)
  await expect(page.getByRole('link', { name: 'Back to the error' })).toBeVisible()
  await shoot(page, 'pivot-page')
  await shootNarrow(page, 'pivot-page')
  await page.goBack()

  // Clicking a value narrows this error's page to it: its events, trend and pivots.
  await pivots.getByRole('tab', { name: 'Stage' }).click()
  await page.getByRole('link', { name: 'Show this error’s events where Release stage is production' }).click()
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/errors/${errorId}\\?f=app\\.release_stage(:|%3A)eq(:|%3A)production`))
  await expect(stages.getByRole('listitem')).toHaveCount(1)
  await expect(stages.getByRole('listitem').nth(0)).toContainText('100%')
  await expect(page.getByRole('region', { name: /^Events \(3\) · matching the filters/ })).toBeVisible()
  expect(watched.pageErrors).toEqual([])
})

test('the project trend chart shows the events; the resolution can change', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'trends-web')
  await notify(request, apiKey, [
    ...Array.from({ length: 4 }, () => simpleEvent({ errorClass: 'QueueBacklogError' })),
    simpleEvent({ errorClass: 'SlowQueryWarning', severity: 'warning' }),
  ])
  await waitForEvents(api, projectId, 5)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  // The trend starts folded above the list.
  await page.getByRole('button', { name: 'Show trend' }).click()
  // All time from the first event, a few minutes ago: auto resolution in minutes.
  const chart = page.getByRole('figure', { name: /^Events per minute, all time \(first event .*\): 5 events$/ })
  await expect(chart).toBeVisible()
  // Bars are drawn (recharts paths), one bucket with events at least.
  await expect(chart.locator('.recharts-bar-rectangle path').first()).toBeVisible()
  await shoot(page, 'trend-hourly')

  await page.getByLabel('Resolution').selectOption('1d')
  await expect(page).toHaveURL(/resolution=1d/)
  const daily = page.getByRole('figure', { name: /^Events per day, .*: 5 events$/ })
  await expect(daily).toBeVisible()
  // The numbers behind the chart: today's bucket holds all five events.
  await daily.getByText('Show the numbers').click()
  const table = daily.getByRole('table')
  await expect(table.getByRole('row').filter({ has: page.getByRole('cell', { name: '5', exact: true }) })).toHaveCount(1)
  await shoot(page, 'trend-daily')
  await page.reload()
  await expect(page.getByLabel('Resolution')).toHaveValue('1d')

  // Dark mode keeps the chart and the list readable.
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'trend-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // The error page has its own histogram.
  await rowOf(page, 'QueueBacklogError').getByRole('link', { name: 'QueueBacklogError' }).click()
  await expect(page.getByRole('figure', { name: /: 4 events$/ })).toBeVisible()
  await shoot(page, 'trend-error')
  expect(watched.pageErrors).toEqual([])
})

test('select all matching errors beyond the loaded rows, and fix them all', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'select-all')
  const classes = Array.from({ length: 120 }, (_, i) => `Bulk${String(i).padStart(3, '0')}Error`)
  await notify(request, apiKey, classes.map((errorClass) => simpleEvent({ errorClass })))
  const openErrors = async () => (await api.get<{ open_error_count: number }>(`/projects/${projectId}`)).open_error_count
  await expect.poll(openErrors, { timeout: 20_000 }).toBe(120)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await page.getByRole('checkbox', { name: 'Select all loaded errors' }).check()
  const toolbar = page.getByRole('toolbar', { name: 'Bulk actions' })
  // The first page only: the rest are not loaded yet.
  await expect(toolbar).toContainText('50 errors selected')
  await page.getByRole('button', { name: 'Select all 120 matching' }).click()
  await expect(toolbar).toContainText('120 errors selected')

  // More than the server takes in one request (100 ids): the dashboard sends two.
  const patches: string[] = []
  page.on('request', (req) => {
    if (req.method() === 'PATCH') patches.push(new URL(req.url()).searchParams.get('error_ids') ?? '')
  })
  await toolbar.getByRole('button', { name: 'Fix' }).click()
  await expect.poll(openErrors).toBe(0)
  expect(patches.map((ids) => ids.split(',').length)).toEqual([100, 20])
  expect(watched.pageErrors).toEqual([])
})
