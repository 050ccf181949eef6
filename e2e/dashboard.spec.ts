import { expect, test } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkoutEvent, otherEvent, simpleEvent, XSS_MESSAGE } from './bugsnag-payload.ts'
import { addTestStyle, ADMIN, Api, createProject, NARROW, notify, shoot, shootNarrow, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test('sign in, set up a project, ingest events and read them', async ({ page, request }) => {
  await page.setViewportSize(WIDE)
  const { pageErrors, dialogs } = watchPage(page)

  // `/` without a token goes to the login page.
  await page.goto('/')
  await expect(page).toHaveURL(/\/login/)
  await expect(page.getByRole('heading', { name: 'Sign in to Errata' })).toBeVisible()
  await page.getByLabel('Email').fill('admin@example.com')
  await page.getByLabel('Password').fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('alert')).toContainText('Wrong email or password.')
  await shoot(page, 'login')
  await shootNarrow(page, 'login')

  await page.getByLabel('Password').fill('e2e-password-123')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/organizations\/?$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Organizations' })).toBeVisible()

  // Organization, then project.
  await page.getByLabel('Name').fill('E2E Org')
  await page.getByRole('button', { name: 'Create organization' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'E2E Org' })).toBeVisible()
  await page.getByLabel('Name').fill('checkout-api')
  await page.getByLabel('Type').selectOption('node')
  await page.getByRole('button', { name: 'Create project' }).click()

  // The empty project explains what to do next, with the key and the snippet.
  await expect(page.getByRole('heading', { name: 'Send your first error' })).toBeVisible()
  const apiKey = (await page.getByLabel('API key of checkout-api', { exact: true }).first().textContent())?.trim() ?? ''
  expect(apiKey).toMatch(/^[0-9a-f]{32}$/)
  const origin = new URL(page.url()).origin
  await expect(page.getByLabel('Notifier snippet', { exact: true })).toContainText(`notify: '${origin}/notify'`)
  await expect(page.getByLabel('Notifier snippet', { exact: true })).toContainText(apiKey)
  await shoot(page, 'errors-empty')
  await shootNarrow(page, 'errors-empty')

  // Ingest: three events of one error (a cause chain), then another error. One after the other is
  // enough for their order: events that share a received time are ordered by id, and one server's
  // ids sort in the order it made them.
  for (const sequence of [1, 2, 3]) await notify(request, apiKey, [checkoutEvent(sequence, new Date())])
  await notify(request, apiKey, [otherEvent(new Date())])

  // The organization page shows the project with its open errors and key.
  await page.getByRole('link', { name: 'E2E Org' }).click()
  const projects = page.getByRole('list', { name: 'Projects' })
  await expect(projects.getByText('2 open errors')).toBeVisible()
  await expect(projects.getByLabel('API key of checkout-api', { exact: true })).toHaveText(apiKey)
  await expect(page.getByRole('button', { name: 'Copy API key of checkout-api' })).toBeVisible()
  await shoot(page, 'organization')
  await shootNarrow(page, 'organization')

  // The errors list.
  await projects.getByRole('link', { name: 'checkout-api' }).click()
  const list = page.getByRole('list', { name: 'Errors' })
  await expect(list.getByRole('listitem')).toHaveCount(2)
  const checkoutRow = list.getByRole('listitem').filter({ hasText: 'CheckoutError' })
  await expect(checkoutRow).toContainText(`${XSS_MESSAGE} #1003`)
  await expect(checkoutRow).toContainText('POST /api/checkout')
  await expect(checkoutRow.locator('time').first()).toHaveAttribute('title', /\d{4}/)
  await page.getByLabel('Sort by').selectOption('events')
  await expect(page).toHaveURL(/sort=events/)
  await expect(list.getByRole('listitem').first()).toContainText('CheckoutError')
  // The trend starts folded above the list; shown, it counts the first events.
  await page.getByRole('button', { name: 'Show trend' }).click()
  await expect(page.getByRole('figure', { name: /: 4 events/ })).toBeVisible()
  await shoot(page, 'errors-list')
  await shootNarrow(page, 'errors-list')

  // The error page.
  await checkoutRow.getByRole('link', { name: 'CheckoutError' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'CheckoutError' })).toBeVisible()
  await expect(page.locator('dt:text-is("Events") + dd')).toHaveText('3')
  await expect(page.locator('dt:text-is("Users") + dd')).toHaveText('3')
  const latest = page.getByRole('region', { name: /Latest event/ })
  await expect(latest.getByRole('list', { name: 'Stack frames of CheckoutError' })).toBeVisible()
  const eventsTable = page.getByRole('region', { name: /Events/ }).getByRole('table')
  await expect(eventsTable.getByRole('row')).toHaveCount(4)
  await shoot(page, 'error')
  await shootNarrow(page, 'error')

  // The latest event in full.
  await latest.getByRole('link', { name: 'Open latest event' }).click()
  await expect(page).toHaveURL(/\/events\//)
  const chain = page.getByRole('list', { name: 'Exceptions, outermost first' })
  await expect(chain.getByRole('listitem', { name: /^(Exception|Caused by):/ })).toHaveText([
    /CheckoutError/,
    /PaymentGatewayError/,
    /TypeError/,
  ])
  // The message is text: the markup shows as characters and no <img> exists.
  await expect(page.getByRole('heading', { level: 1, name: 'CheckoutError' })).toBeVisible()
  await expect(page.getByText(`${XSS_MESSAGE} #1003`).first()).toBeVisible()
  expect(await page.locator('main img').count()).toBe(0)

  const trace = page.getByRole('list', { name: 'Stack frames of CheckoutError' })
  await expect(trace.getByRole('listitem', { name: /^In-project frame 1: submitOrder/ })).toBeVisible()
  await expect(trace.locator('[aria-current="true"]')).toContainText('cart.totals.amount.value')
  await expect(trace.getByText('Layer.handle [as handle_request]')).toHaveCount(0)
  await trace.getByRole('button', { name: 'Show 2 library frames, frames 2 to 3' }).click()
  await expect(trace.getByText('Layer.handle [as handle_request]')).toBeVisible()
  // Node runs these TypeScript sources as written: nothing says they are minified or lack a map.
  await expect(page.getByText(/minified|no source map/i)).toHaveCount(0)

  // The cause's recursion folds to one cycle, × 6, and unfolds on request.
  const recursion = page.getByRole('list', { name: 'Stack frames of TypeError' }).getByRole('listitem', { name: 'Recursion: 2 frames repeated 6 times, frames 2 to 13' })
  await expect(recursion).toContainText('× 6')
  await expect(recursion.getByRole('listitem')).toHaveCount(2)
  // Its name says what it does next: "Show all 12 frames …", then "Fold the repetitions …".
  const unfold = recursion.getByRole('button', { name: /of the recursion, frames 2 to 13$/ })
  await expect(unfold).toHaveAccessibleName('Show all 12 frames of the recursion, frames 2 to 13')
  await unfold.click()
  await expect(unfold).toHaveAttribute('aria-expanded', 'true')
  await expect(recursion.getByRole('listitem')).toHaveCount(12)
  await unfold.press('Enter')
  await expect(unfold).toHaveAttribute('aria-expanded', 'false')
  await expect(recursion.getByRole('listitem')).toHaveCount(2)

  const crumbs = page.getByRole('list', { name: 'Breadcrumbs, oldest first' })
  await expect(crumbs.getByRole('listitem')).toHaveCount(4)
  await expect(crumbs).toContainText('User clicked checkout')

  await page.getByRole('tab', { name: 'company' }).click()
  await expect(page).toHaveURL(/tab=company/)
  await expect(page.getByRole('tabpanel')).toContainText('<script>alert("meta")</script>')
  await page.getByRole('tab', { name: 'order' }).click()
  await expect(page.getByRole('tabpanel')).toContainText('ord_1003')

  const user = page.getByRole('region', { name: 'User' })
  await expect(user).toContainText('ada@example.com')
  await expect(user).toContainText('user-3')
  await expect(page.getByRole('table', { name: /Feature flags/ })).toContainText('checkout-v2')

  // Threads: the crashed one in view and open; the others behind a toggle, each opened on demand.
  const crashed = page.getByRole('list', { name: 'Error-reporting thread' })
  await expect(crashed.getByRole('button', { name: 'Stack trace of thread main' })).toHaveAttribute('aria-expanded', 'true')
  await expect(crashed).toContainText('submitOrder')
  await page.getByRole('button', { name: /^Other threads \(\d+\)$/ }).click()
  const others = page.getByRole('list', { name: 'Other threads' })
  await others.getByRole('button', { name: 'Stack trace of thread payment-worker' }).click()
  await expect(others).toContainText('Queue.poll')
  await shoot(page, 'event')
  await shootNarrow(page, 'event')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'event-dark')
  await shootNarrow(page, 'event-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // Previous / next through the error's events.
  const nav = page.getByRole('navigation', { name: 'Event navigation' })
  await expect(nav.getByText('No newer event')).toBeVisible()
  await nav.getByRole('link', { name: /Older event/ }).click()
  await expect(page.getByRole('region', { name: 'User' })).toContainText('user-2')
  await nav.getByRole('link', { name: /Older event/ }).click()
  await expect(page.getByRole('region', { name: 'User' })).toContainText('user-1')
  await expect(nav.getByText('No older event')).toBeVisible()
  await nav.getByRole('link', { name: /Newer event/ }).click()
  await expect(page.getByRole('region', { name: 'User' })).toContainText('user-2')

  // Breadcrumbs in the header lead back; sign out ends the session.
  await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'checkout-api' }).click()
  await expect(page.getByRole('list', { name: 'Errors' })).toBeVisible()
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(/\/login/)

  expect(dialogs, 'no script from event data may run').toEqual([])
  expect(pageErrors).toEqual([])
})

test('long unbroken names wrap or truncate instead of widening the page', async ({ page, request }) => {
  await page.setViewportSize(WIDE)
  const { pageErrors, dialogs } = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'long-names')
  // Event data is untrusted: a notifier may send names of any length with no spaces to break at.
  const errorClass = `Unbroken${'Abc'.repeat(120)}`
  // Metadata nested nearly as deep as ingest keeps (20 levels) must not squeeze values to a letter per line.
  const deep: Record<string, unknown> = {}
  let level = deep
  for (let depth = 0; depth < 16; depth++) level = level[`nested${depth}`] = { [`value${depth}`]: `value at depth ${depth}` }
  await notify(request, apiKey, [
    {
      ...simpleEvent({ errorClass, message: `<b>${'x'.repeat(2000)}</b>`, context: `GET /${'c'.repeat(500)}`, user: { id: 'u'.repeat(300) } }),
      // A long severity reason attribute wraps in its pill instead of widening the page.
      severityReason: { type: 'unhandledExceptionMiddleware', attributes: { framework: 'Express', route: `/api/v1/orders/${'a1b2c3d4e5'.repeat(27)}` } },
      metaData: { deep },
    },
  ])
  const [error] = await api.get<{ id: string }[]>(`/projects/${projectId}/errors`)
  const event = await api.get<{ id: string }>(`/projects/${projectId}/errors/${error!.id}/latest_event`)

  const projectCrumb = page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'long-names', exact: true })
  const isWhole = (link: HTMLElement) => link.parentElement!.scrollWidth <= link.parentElement!.clientWidth

  await signIn(page)
  for (const [name, path] of [
    ['long-names-errors', `/projects/${projectId}/errors`],
    ['long-names-error', `/projects/${projectId}/errors/${error!.id}`],
    ['long-names-event', `/projects/${projectId}/errors/${error!.id}/events/${event.id}`],
  ] as const) {
    await page.goto(path)
    await expect(page.getByText(errorClass.slice(0, 40)).first()).toBeVisible()
    // The other levels keep their names, untruncated, beside a long error class.
    await expect(projectCrumb).toBeVisible()
    expect(await projectCrumb.evaluate(isWhole)).toBe(true)
    await shoot(page, name)
    await shootNarrow(page, name)
  }
  // A class of 5,000 characters (stored as its first 4,096) keeps the triage actions on a phone's first screen.
  const hugeClass = `Huge${'Xyz'.repeat(1665)}q`
  await notify(request, apiKey, [simpleEvent({ errorClass: hugeClass, message: 'a huge class' })])
  const huge = (await api.get<{ id: string; error_class: string }[]>(`/projects/${projectId}/errors`)).find((e) => e.error_class.startsWith('Huge'))!
  await page.setViewportSize(NARROW)
  await page.goto(`/projects/${projectId}/errors/${huge.id}`)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${hugeClass.slice(0, 200)}…`)
  await expect(page.getByRole('toolbar', { name: 'Error actions' }).getByRole('button', { name: 'Fix' })).toBeInViewport()
  await shoot(page, 'long-names-huge-class-narrow')
  await page.getByRole('button', { name: 'Show all 4,096 characters of the error class' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(hugeClass.slice(0, 4096))
  await page.setViewportSize(WIDE)
  await page.goto(`/projects/${projectId}/errors/${error!.id}/events/${event.id}`)
  await expect(page.getByText(errorClass.slice(0, 40)).first()).toBeVisible()

  // Every level of the deep tree opened, at both widths: the deepest value keeps a readable width.
  const metadata = page.getByRole('region', { name: 'Metadata' })
  for (let depth = 1; depth < 16; depth++) await metadata.getByRole('button', { name: new RegExp(`^nested${depth}\\b`) }).click()
  const deepest = metadata.getByText('value at depth 15', { exact: true })
  for (const size of [WIDE, NARROW]) {
    await page.setViewportSize(size)
    await expect.poll(() => deepest.evaluate((node) => node.getBoundingClientRect().width), { message: `deepest value at ${size.width}px` }).toBeGreaterThan(100)
    await expect.poll(() => deepest.evaluate((node) => node.getClientRects().length), { message: `deepest value on one line at ${size.width}px` }).toBe(1)
  }
  await shoot(page, 'long-names-event-deep-metadata')
  await shootNarrow(page, 'long-names-event-deep-metadata')
  // The severity reason stays whole, wrapped in its pill.
  await expect(page.getByText(/^unhandledExceptionMiddleware \(framework: Express, route: \/api\/v1\/orders\/a1b2/)).toBeVisible()

  // Fonts differ between machines: with every glyph wider than here, the project still keeps its whole name.
  await addTestStyle(page, 'body { letter-spacing: 0.12em }')
  await expect.poll(() => projectCrumb.evaluate(isWhole)).toBe(true)
  // The event page keeps its newer/older navigation on screen.
  await expect(page.getByRole('navigation', { name: 'Event navigation' })).toBeInViewport()

  // On a phone the current level stays readable beside the long one before it.
  await page.setViewportSize(NARROW)
  const current = page.getByRole('navigation', { name: 'Breadcrumbs' }).locator('[aria-current="page"] > span')
  await expect(current).toHaveText('Event')
  await expect.poll(() => current.evaluate((span) => span.scrollWidth <= span.clientWidth)).toBe(true)
  await page.setViewportSize(WIDE)
  // So are project names: an empty project's page with a long one.
  const { projectId: longProjectId } = await createProject(api, `proj-${'Name'.repeat(30)}`)
  await page.goto(`/projects/${longProjectId}/errors`)
  await expect(page.getByRole('heading', { name: 'Send your first error' })).toBeVisible()
  await shoot(page, 'long-names-empty-project')
  await shootNarrow(page, 'long-names-empty-project')

  // A token description is free text too.
  const description = `ci-${'Token'.repeat(39)}`
  await api.post('/user/tokens', { description })
  // As seen 35 minutes later, so every time reads as long as "35 minutes ago".
  await page.clock.setFixedTime(Date.now() + 35 * 60_000)
  await page.goto('/settings/tokens')
  await expect(page.getByText(description)).toBeVisible()
  // At desktop width each time stays on one line (the "Last used" column wrapped them in two).
  const times = page.getByRole('table', { name: 'Your tokens' }).locator('tbody time')
  await expect(times.first()).toHaveText('35 minutes ago')
  expect(await times.evaluateAll((all) => all.filter((time) => time.getClientRects().length > 1).map((time) => time.textContent))).toEqual([])
  await shoot(page, 'long-names-tokens')
  await shootNarrow(page, 'long-names-tokens')
  await page.getByRole('button', { name: `Revoke token ${description}` }).click()
  await expect(page.getByRole('dialog')).toBeVisible()
  await shoot(page, 'long-names-token-revoke')
  await page.keyboard.press('Escape')
  expect(pageErrors).toEqual([])
  expect(dialogs).toEqual([])
})

test('at tablet widths an errors row keeps its class readable and the header its parts apart', async ({ page, request }) => {
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'tablet-checkout-web-frontend')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'PaymentDeclinedException', message: 'Card declined by the issuer' })])
  await waitForEvents(api, projectId, 1)
  await signIn(page)
  const row = page.getByRole('list', { name: 'Errors' }).getByRole('listitem').first()
  const classLink = row.getByRole('link', { name: /PaymentDeclinedException/ })
  const projectCrumb = page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'tablet-checkout-web-frontend', exact: true })
  const email = page.getByRole('banner').getByText(ADMIN.email)
  for (const width of [700, 768, 900, 1024, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`/projects/${projectId}/errors`)
    // The class and message are what a row is read by: not cut to a few letters by the count columns.
    await expect(classLink).toBeVisible()
    expect(await classLink.evaluate((link) => link.scrollWidth <= link.clientWidth), `class whole at ${width}px`).toBe(true)
    await expect(row.getByText('Card declined by the issuer')).toBeVisible()
    // The signed-in email shows only where it leaves the breadcrumbs room for the project's name.
    expect(await projectCrumb.evaluate((link) => link.parentElement!.scrollWidth <= link.parentElement!.clientWidth), `project name whole at ${width}px`).toBe(true)
  }
  await expect(email).toBeVisible()
})

test('opening a project whose errors list is slow shows the page at once, the list loading in its place', async ({ page, request }) => {
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'slow-list')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'SlowListError' })])
  await waitForEvents(api, projectId, 1)
  await signIn(page)
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/api\/projects\/[^/]+\/errors\?/, async (route) => {
    await held
    await route.continue()
  })
  await page.goto(`/projects/${projectId}/errors`)
  // The list has not answered: the page, its controls and the list's skeleton are there already.
  await expect(page.getByRole('heading', { level: 1, name: 'slow-list: errors' })).toBeVisible()
  await expect(page.getByLabel('Sort by')).toBeVisible()
  await expect(page.getByText('Loading errors')).toBeAttached()
  release()
  await expect(page.getByRole('list', { name: 'Errors' }).getByRole('listitem')).toHaveCount(1)
})

test('an Android NDK crash reads by module and address, and crashes from two installs share one error', async ({ page, request }) => {
  await page.setViewportSize(WIDE)
  const { pageErrors } = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'android-app')
  const fixture = JSON.parse(readFileSync(join(import.meta.dirname, '../test/fixtures/native/android-ndk-event.json'), 'utf8')) as {
    exceptions: Array<{ stacktrace: Array<Record<string, unknown>> }>
  }
  // As bugsnag-android sends it: the .so under a per-install random path, addresses as JSON numbers.
  const crashOn = (install: string, shift: number) => ({
    ...simpleEvent({ errorClass: 'SIGSEGV', message: 'Segmentation violation (invalid memory reference)' }),
    exceptions: fixture.exceptions.map((exception) => ({
      ...exception,
      stacktrace: exception.stacktrace.map((frame) => ({
        ...frame,
        file: `/data/app/~~${install}==/com.example-${install}==/lib/arm64/libcrash.aarch64.so`,
        frameAddress: (frame.frameAddress as number) + shift,
        loadAddress: (frame.loadAddress as number) + shift,
      })),
      registers: [{ frameIndex: 0, registerValues: [{ registerName: 'pc', registerValue: 516530042520 + shift }] }],
    })),
    device: { osName: 'android', osVersion: '14', manufacturer: 'Google', model: 'Pixel 8' },
  })
  await notify(request, apiKey, [crashOn('Qx1', 0), crashOn('Zz9', 0x1000000)])
  const errors = await api.get<{ id: string; events: number }[]>(`/projects/${projectId}/errors`)
  expect(errors.map((error) => error.events)).toEqual([2])
  const event = await api.get<{ id: string }>(`/projects/${projectId}/errors/${errors[0]!.id}/latest_event`)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors/${errors[0]!.id}/events/${event.id}`)
  const trace = page.getByRole('list', { name: 'Stack frames of SIGSEGV' })
  await expect(trace.getByRole('listitem', { name: 'Library frame 1: crash_here at libcrash.aarch64.so + 0x1698' })).toBeVisible()
  await expect(trace.getByRole('listitem', { name: 'Library frame 2: level_two at libcrash.aarch64.so + 0x16b8' })).toBeVisible()
  await expect(trace.getByText('program counter')).toHaveCount(1)
  await page.getByText('Registers (1)').click()
  await expect(page.getByRole('table', { name: 'Frame 1' }).getByRole('row', { name: /^pc 0x/ })).toBeVisible()
  await shoot(page, 'native-crash')
  await shootNarrow(page, 'native-crash')
  expect(pageErrors).toEqual([])
})

test('not-found pages say what was not found', async ({ page }) => {
  const { pageErrors } = watchPage(page)
  await page.goto('/login')
  await page.getByLabel('Email').fill('admin@example.com')
  await page.getByLabel('Password').fill('e2e-password-123')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/organizations/)

  await page.goto('/projects/does-not-exist/errors')
  await expect(page.getByRole('heading', { name: 'Project not found' })).toBeVisible()
  await expect(page.getByText('does-not-exist')).toBeVisible()
  await shoot(page, 'not-found')

  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
  expect(pageErrors).toEqual([])
})

test('dark theme follows the system', async ({ browser }) => {
  const context = await browser.newContext({ colorScheme: 'dark', viewport: WIDE })
  const page = await context.newPage()
  const { pageErrors } = watchPage(page)
  await page.goto('/login')
  const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
  // A dark background: low lightness (Chromium reports oklch colours as written).
  const lightness = background.startsWith('oklch(')
    ? Number(background.match(/[\d.]+/)?.[0])
    : Math.max(...(background.match(/\d+/g)?.slice(0, 3).map((c) => Number(c) / 255) ?? [1]))
  expect(lightness, background).toBeLessThan(0.3)
  await shoot(page, 'login-dark')
  await context.close()
  expect(pageErrors).toEqual([])
})
