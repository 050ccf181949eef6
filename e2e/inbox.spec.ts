// The errors inbox and triage of issue 19 on the real server and a real browser: the list above
// the fold, status tabs with counts, free-text search, sortable headers, Undo that reverts on the
// server, the error page's steady buttons and next-error key, and the event page's tools.
import { expect, test, type Page } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import {
  Api,
  createProject,
  errorsByClass,
  errorsList,
  expectAccessible,
  notify,
  rowOf,
  shoot,
  shootAll,
  signIn,
  waitForEvents,
  watchPage,
} from './support.ts'

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

test.use({ viewport: DESKTOP })

const tabs = (page: Page) => page.getByRole('navigation', { name: 'Error status' })

/** Twelve errors, one of them handled and in staging, one with "jwt" only in its message. */
async function seedInbox(request: Parameters<typeof Api.signIn>[0], name: string) {
  const api = await Api.signIn(request)
  const project = await createProject(api, name)
  const classes = Array.from({ length: 12 }, (_, i) => `InboxError${String(i + 1).padStart(2, '0')}`)
  await notify(
    request,
    project.apiKey,
    classes.map((errorClass, i) =>
      simpleEvent({
        errorClass,
        message: i === 3 ? 'jwt expired while refreshing the session' : undefined,
        releaseStage: i === 0 ? 'staging' : 'production',
        appVersion: `2.${i}.0`,
      }),
    ),
  )
  await waitForEvents(api, project.projectId, 12)
  return { api, ...project, classes }
}

/** How many rows of the list are wholly on screen, and where the first one starts. */
async function rowsOnScreen(page: Page) {
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll('[role="list"][aria-label="Errors"] [role="listitem"]')].map((row) =>
      row.getBoundingClientRect(),
    )
    return { firstTop: Math.round(rows[0]?.top ?? Infinity), whole: rows.filter((r) => r.top >= 0 && r.bottom <= window.innerHeight).length }
  })
}

test('the inbox: the list above the fold, tabs with counts, a trend that folds away and stays folded', async ({ page, request }) => {
  const watched = watchPage(page)
  const { projectId } = await seedInbox(request, 'inbox-layout')
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)

  // At 1280×800 the list starts within the first 300 px and shows at least 8 whole rows.
  const desktop = await rowsOnScreen(page)
  expect(desktop.firstTop, 'first row top').toBeLessThanOrEqual(300)
  expect(desktop.whole, 'whole rows on screen').toBeGreaterThanOrEqual(8)

  await shootAll(page, 'inbox-folded')
  // Counts per status from the server; the Open tab is the default view.
  await expect(tabs(page).getByRole('link', { name: 'Open 12' })).toHaveAttribute('aria-current', 'page')
  await expect(tabs(page).getByRole('link', { name: 'All 12' })).toBeVisible()

  // Rows show handled/unhandled, release stage, app version (and status).
  const first = rowOf(page, 'InboxError01')
  await expect(first).toContainText('unhandled')
  await expect(first).toContainText('staging')
  await expect(first).toContainText('2.0.0')

  // The trend starts folded; shown, it is compact, and the choice stays for the next visit.
  await expect(page.getByRole('button', { name: 'Show trend' })).toHaveAttribute('aria-expanded', 'false')
  await page.getByRole('button', { name: 'Show trend' }).click()
  await expect(page.getByRole('button', { name: 'Hide trend' })).toHaveAttribute('aria-expanded', 'true')
  await expect(page.getByRole('region', { name: /^Events/ })).toBeVisible()
  await page.reload()
  await expect(page.getByRole('button', { name: 'Hide trend' })).toBeVisible()
  await expect(page.getByRole('region', { name: /^Events/ })).toBeVisible()

  await expectAccessible(page)
  await shootAll(page, 'inbox')
  expect(watched.pageErrors).toEqual([])
})

test('on a phone the list comes first', async ({ browser, request }) => {
  const { projectId } = await seedInbox(request, 'inbox-phone')
  const context = await browser.newContext({ viewport: PHONE })
  const page = await context.newPage()
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  // Rows of one second share last_seen, in any order: whichever comes first (the virtualized list
  // renders only the rows near the screen).
  await expect(errorsList(page).getByRole('listitem').first().getByRole('link', { name: /^InboxError/ })).toBeVisible()
  // The trend starts folded: the first rows are on the first screen.
  await expect(page.getByRole('button', { name: 'Show trend' })).toBeVisible()
  const phone = await rowsOnScreen(page)
  expect(phone.firstTop).toBeLessThan(PHONE.height * 0.6)
  expect(phone.whole).toBeGreaterThanOrEqual(3)
  // Every status tab is on screen, none past a sideways scroll, and Tab reaches the last one.
  const tabList = tabs(page).getByRole('list')
  for (const name of ['Open', 'Snoozed', 'Fixed', 'Ignored', 'All']) {
    const tab = tabs(page).getByRole('link', { name: new RegExp(`^${name} `) })
    const box = (await tab.boundingBox())!
    expect(box.x, name).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width, name).toBeLessThanOrEqual(PHONE.width)
  }
  expect(await tabList.evaluate((list) => list.scrollWidth <= list.clientWidth)).toBe(true)
  await tabs(page).getByRole('link', { name: /^Ignored / }).focus()
  await page.keyboard.press('Tab')
  await expect(tabs(page).getByRole('link', { name: /^All / })).toBeFocused()
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    await shoot(page, `inbox-phone-tabs${colorScheme === 'dark' ? '-dark' : ''}`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await expectAccessible(page)
  await context.close()
})

test('search, status tabs and sortable headers keep their state in the URL', async ({ page, request }) => {
  const watched = watchPage(page)
  const { projectId } = await seedInbox(request, 'inbox-search')
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)

  // Free text: "jwt" is in one error's message only.
  const combobox = page.getByRole('combobox', { name: 'Filter errors' })
  await combobox.fill('jwt')
  await expect(page.getByRole('listbox', { name: 'Fields' }).getByRole('option').first()).toHaveText(/Search “jwt”/)
  await combobox.press('Enter')
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(1)
  await expect(rowOf(page, 'InboxError04')).toBeVisible()
  await expect(page.getByText('Search looked in error class, message and context.')).toBeVisible()
  await expect(page).toHaveURL(/f=search%3Aeq%3Ajwt|f=search:eq:jwt/)
  await expect(tabs(page).getByRole('link', { name: 'All 1' })).toBeVisible()
  await shootAll(page, 'inbox-search')
  await page.getByRole('button', { name: /Remove filter Search contains jwt/ }).click()
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)

  // Column headers sort; the same header again turns the order round.
  await page.getByRole('button', { name: /^First seen/ }).click()
  await expect(page).toHaveURL(/sort=first_seen/)
  await expect(page.getByRole('button', { name: /^First seen\s*,?\s*sorted newest first/ })).toBeVisible()
  await page.getByRole('button', { name: /^First seen/ }).click()
  await expect(page).toHaveURL(/direction=asc/)
  await expect(page.getByRole('button', { name: /^First seen\s*,?\s*sorted oldest first/ })).toBeVisible()

  // A tab is a URL: Back returns to the one before.
  await tabs(page).getByRole('link', { name: /^Ignored/ }).click()
  await expect(page).toHaveURL(/error\.status%3Aeq%3Aignored|error\.status:eq:ignored/)
  await expect(page.getByText('No errors match these filters')).toBeVisible()
  await page.goBack()
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)
  expect(watched.pageErrors).toEqual([])
})

test('Undo after a bulk ignore and after f really reverts on the server', async ({ page, request }) => {
  const watched = watchPage(page)
  const { api, projectId } = await seedInbox(request, 'inbox-undo')
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)

  // Snooze one first, so the undo must bring a snooze rule back with its bookkeeping.
  const snoozedBefore = await api.request.patch(`/api/projects/${projectId}/errors/${(await errorsByClass(api, projectId)).get('InboxError02')!.id}`, {
    headers: { Authorization: `token ${api.token}`, 'X-Version': '2' },
    data: { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 5 } },
  })
  expect(snoozedBefore.status(), await snoozedBefore.text()).toBe(200)
  const snoozeRules = ((await snoozedBefore.json()) as { reopen_rules: unknown }).reopen_rules
  await tabs(page).getByRole('link', { name: /^All/ }).click()
  // The All tab's rows have arrived (not the Open tab's, still shown while they load): the snooze shows.
  await expect(rowOf(page, 'InboxError02')).toContainText('snoozed')
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)

  await page.getByRole('checkbox', { name: 'Select InboxError01' }).check()
  await page.getByRole('checkbox', { name: 'Select InboxError02' }).check()
  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Ignore' }).click()
  const toast = page.getByRole('status').filter({ hasText: '2 errors ignored' })
  await expect(toast).toBeVisible()
  await expect.poll(async () => (await errorsByClass(api, projectId)).get('InboxError01')!.status).toBe('ignored')
  await shootAll(page, 'inbox-undo-toast')
  await toast.getByRole('button', { name: 'Undo' }).click()
  await expect.poll(async () => (await errorsByClass(api, projectId)).get('InboxError01')!.status).toBe('open')
  const restored = (await errorsByClass(api, projectId)).get('InboxError02')!
  expect(restored.status).toBe('snoozed')
  expect(restored.reopen_rules).toEqual(snoozeRules)

  // One row with f: the toast's Undo reopens it.
  await rowOf(page, 'InboxError03').getByRole('link', { name: 'InboxError03' }).focus()
  await page.keyboard.press('f')
  const fixed = page.getByRole('status').filter({ hasText: 'Error fixed' })
  await expect(fixed).toBeVisible()
  await expect.poll(async () => (await errorsByClass(api, projectId)).get('InboxError03')!.status).toBe('fixed')
  await fixed.getByRole('button', { name: 'Undo' }).click()
  await expect.poll(async () => (await errorsByClass(api, projectId)).get('InboxError03')!.status).toBe('open')
  expect(watched.pageErrors).toEqual([])
})

test('error page: buttons stay put, n opens the next error; event page: N of M, copy, raw JSON, delete', async ({ page, request }) => {
  const watched = watchPage(page)
  const { api, projectId, apiKey } = await seedInbox(request, 'inbox-error-page')
  // Two more events of the first error, for event paging and deletion.
  await notify(request, apiKey, [simpleEvent({ errorClass: 'InboxError12' }), simpleEvent({ errorClass: 'InboxError12' })])
  await waitForEvents(api, projectId, 14)
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(12)
  // Newest first: InboxError12 leads the list; the next error is the row under it.
  const secondClass = (await errorsList(page).getByRole('listitem').nth(1).getByRole('link').first().textContent())!
  await errorsList(page).getByRole('link', { name: /^InboxError12:/ }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'InboxError12' })).toBeVisible()

  const actions = page.getByRole('toolbar', { name: 'Error actions' })
  const place = async (name: string) => (await actions.getByRole('button', { name, exact: true }).boundingBox())!
  const before = { fix: await place('Fix'), reopen: await place('Reopen') }
  await expect(actions.getByRole('button', { name: 'Reopen', exact: true })).toBeDisabled()
  await page.keyboard.press('f')
  await expect(actions.getByRole('button', { name: 'Fix', exact: true })).toBeDisabled()
  await expect(actions.getByRole('button', { name: 'Reopen', exact: true })).toBeEnabled()
  expect(await place('Fix')).toEqual(before.fix)
  expect(await place('Reopen')).toEqual(before.reopen)
  await expect(actions.getByRole('link', { name: 'Next error' })).toBeVisible()
  await expectAccessible(page)
  await shootAll(page, 'error-page-after-fix')
  await page.keyboard.press('n')
  await expect(page.getByRole('heading', { level: 1, name: secondClass })).toBeVisible()

  // The event page of InboxError12's newest event.
  const error = (await errorsByClass(api, projectId)).get('InboxError12')!
  const events = await api.get<{ id: string }[]>(`/projects/${projectId}/errors/${error.id}/events`)
  await page.goto(`/projects/${projectId}/errors/${error.id}/events/${events[0]!.id}`)
  const nav = page.getByRole('navigation', { name: 'Event navigation' })
  await expect(nav.getByText('Event 1 of 3')).toBeVisible()
  await nav.getByRole('link', { name: 'Older event' }).click()
  await expect(nav.getByText('Event 2 of 3')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Copy stack trace' })).toBeVisible()

  await page.getByRole('button', { name: 'Raw JSON' }).click()
  const raw = page.getByRole('dialog', { name: 'Raw event JSON' })
  await expect(raw).toContainText(`"id": "${events[1]!.id}"`)
  // Wide enough for JSON lines (at 1280 px: 64rem), with a Copy that says it copied.
  expect((await raw.boundingBox())!.width).toBeGreaterThan(900)
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await raw.getByRole('button', { name: 'Copy JSON' }).click()
  await expect(raw.getByRole('button', { name: 'Copied: Copy JSON' })).toContainText('Copied')
  expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { id: string }).toMatchObject({ id: events[1]!.id })
  await page.screenshot({ path: 'test-results/screenshots/event-raw-json-1280-light.png' })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize({ width: 390, height: 844 })
  await page.screenshot({ path: 'test-results/screenshots/event-raw-json-390-dark.png' })
  await page.setViewportSize({ width: 1280, height: 900 })
  await page.emulateMedia({ colorScheme: 'light' })
  const download = page.waitForEvent('download')
  await raw.getByRole('button', { name: 'Download JSON' }).click()
  expect((await download).suggestedFilename()).toBe(`event-${events[1]!.id}.json`)
  await expectAccessible(page)
  await page.keyboard.press('Escape')

  await page.getByRole('button', { name: 'Delete event' }).click()
  await page.getByRole('dialog', { name: 'Delete this event?' }).getByRole('button', { name: 'Delete event' }).click()
  // On to the older one; the error counts two events now.
  await expect(page).toHaveURL(new RegExp(`/events/${events[2]!.id}$`))
  await expect(nav.getByText('Event 2 of 2')).toBeVisible()
  await expect(page.getByRole('dialog', { name: 'Delete this event?' })).toHaveCount(0)
  await expect(page.getByText('Could not refresh data')).toHaveCount(0)
  expect((await errorsByClass(api, projectId)).get('InboxError12')!.events).toBe(2)
  await shootAll(page, 'event-page-tools')
  expect(watched.pageErrors).toEqual([])
})
