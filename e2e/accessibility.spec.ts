import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { framePointerStack, writeMinidump } from '../server/test-support/minidump-writer.ts'
import { checkoutEvent, otherEvent } from './bugsnag-payload.ts'
import { addTestStyle, Api, createProject, notify, signIn, waitForIndexing, watchPage } from './support.ts'

const nativeFixture = (name: string) => readFileSync(fileURLToPath(new URL(`../test/fixtures/native/${name}`, import.meta.url)))

/** An arm64 minidump of a crash in libcrash (as e2e/native-symbols.spec.ts sends), with a second thread. */
function minidump(): Buffer {
  const base = 0x7000000000n
  const stack = framePointerStack('arm64', { base: 0x7ff0000000n, returnAddresses: [base + 0x16bcn, base + 0x16e0n] })
  const idle = framePointerStack('arm64', { base: 0x7fe0000000n, returnAddresses: [] })
  return writeMinidump({
    arch: 'arm64',
    os: 'android',
    modules: [{ name: '/data/app/com.example/lib/arm64/libcrash.so', base, size: 0x10000, buildId: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a' }],
    crashingThread: { id: 7, pc: base + 0x1698n, sp: stack.sp, fp: stack.fp, lr: base + 0x16bcn, stack: stack.stack },
    threads: [{ id: 8, pc: base + 0x16e0n, sp: idle.sp, fp: 0n, lr: 0n, stack: idle.stack }],
    exception: { code: 11, address: 0x10n },
  })
}

/**
 * Every page, as axe-core reads it against WCAG 2.1 A and AA, in light and dark: no serious or
 * critical violation (missing names, contrast, names that do not match their visible words, …).
 * Moderate findings (best practices) are left to review.
 */
async function expectAccessible(page: Page, name: string) {
  // Colours change with a short transition: without this, a scan right after switching the
  // scheme can measure contrast halfway between the two.
  await addTestStyle(page, '*, *::before, *::after { transition: none !important; animation: none !important; }')
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
    const blocking = results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary}`).join('; ')}`)
    expect(blocking, `${name}, ${colorScheme}`).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

test('every page passes axe-core (WCAG 2.1 AA, serious and critical), light and dark', async ({ page, request }) => {
  // Twenty-five pages, each scanned twice (light and dark): minutes on a loaded 2-core machine.
  test.setTimeout(360_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey } = await createProject(api, 'a11y-web')
  const empty = await api.post<{ id: string }>(`/organizations/${organizationId}/projects`, { name: 'a11y-empty', type: 'node' })
  const now = new Date()
  await notify(request, apiKey, [checkoutEvent(1, now), checkoutEvent(2, now), otherEvent(now)])
  const errors = await api.get<{ id: string; error_class: string }[]>(`/projects/${projectId}/errors`)
  const checkout = errors.find((error) => error.error_class === 'CheckoutError')!
  const [event] = await api.get<{ id: string }[]>(`/errors/${checkout.id}/events?per_page=1`)

  // Native: a .sym uploaded with the key, an NDK crash it symbolicates, a minidump with threads.
  const sym = await request.post(`/breakpad-symbol?api_key=${apiKey}`, {
    multipart: { symbol_file: { name: 'libcrash.sym', mimeType: 'text/plain', buffer: nativeFixture('libcrash.aarch64.sym') } },
  })
  expect(sym.status(), await sym.text()).toBe(200)
  const { exceptions } = JSON.parse(nativeFixture('android-ndk-event.json').toString('utf8')) as { exceptions: unknown[] }
  await notify(request, apiKey, [{ payloadVersion: '4', exceptions, severity: 'error', unhandled: true, severityReason: { type: 'signal' }, app: { version: '1.0' } }])
  const dump = await request.post(`/minidump?api_key=${apiKey}`, {
    multipart: { upload_file_minidump: { name: 'crash.dmp', mimeType: 'application/octet-stream', buffer: minidump() } },
  })
  expect(dump.status(), await dump.text()).toBe(202)
  await waitForIndexing(request)
  const minidumpEvent = await api.get<{ id: string; error_id: string }>(`/projects/${projectId}/events/${(await dump.text()).trim()}`)
  // Newest first: the minidump's event, then the NDK crash's.
  const ndkEvent = (await api.get<{ id: string; error_id: string }[]>(`/projects/${projectId}/events?per_page=2`)).find((candidate) => candidate.id !== minidumpEvent.id)
  expect(ndkEvent).toBeDefined()

  await page.goto('/login')
  await expect(page.getByRole('heading', { name: 'Sign in to Errata' })).toBeVisible()
  await expectAccessible(page, 'login')

  await signIn(page)
  const pages: [string, string, RegExp | string][] = [
    ['organizations', '/organizations', 'Organizations'],
    ['organization', `/organizations/${organizationId}`, /a11y-web org/],
    ['collaborators', `/organizations/${organizationId}/collaborators`, /collaborators/],
    ['organization settings', `/organizations/${organizationId}/settings`, /a11y-web org .*: settings/],
    ['errors', `/projects/${projectId}/errors`, 'a11y-web: errors'],
    ['send your first error', `/projects/${empty.id}/errors`, 'a11y-empty: errors'],
    ['project settings', `/projects/${projectId}/settings`, 'a11y-web: settings'],
    ['source maps & symbols', `/projects/${projectId}/source-maps`, 'a11y-web: source maps & symbols'],
    ['error', `/projects/${projectId}/errors/${checkout.id}`, 'CheckoutError'],
    ['event', `/projects/${projectId}/errors/${checkout.id}/events/${event!.id}`, 'CheckoutError'],
    ['native symbols', `/projects/${projectId}/source-maps?kind=native`, 'a11y-web: source maps & symbols'],
    ['native event', `/projects/${projectId}/errors/${ndkEvent!.error_id}/events/${ndkEvent!.id}`, 'SIGSEGV'],
    ['native event, raw frames', `/projects/${projectId}/errors/${ndkEvent!.error_id}/events/${ndkEvent!.id}?frames=raw`, 'SIGSEGV'],
    ['minidump event', `/projects/${projectId}/errors/${minidumpEvent.error_id}/events/${minidumpEvent.id}`, 'SIGSEGV'],
    ['pivot values', `/projects/${projectId}/pivots/app.release_stage`, 'Release stage values'],
    ['error pivot values', `/projects/${projectId}/errors/${checkout.id}/pivots/app.release_stage`, /Release stage values of CheckoutError/],
    ['releases', `/projects/${projectId}/releases`, 'a11y-web: releases'],
    ['stability', `/projects/${projectId}/stability`, 'a11y-web: stability'],
    ['privacy requests', `/organizations/${organizationId}/privacy?f=user.id:eq:someone`, /: privacy requests$/],
    ['personal tokens', '/settings/tokens', 'Personal tokens'],
    ['notifications', '/settings/notifications', 'Notifications'],
    // The emailed link's page, here with a link that is not valid (e2e/notification-settings.spec.ts checks a real one).
    ['unsubscribe', '/unsubscribe?token=not.valid', 'Email notifications'],
    ['not found', `/projects/${projectId}/errors/no-such-error`, /not found/i],
    ['page not found', '/no/such/page', 'Page not found'],
  ]
  for (const [name, path, heading] of pages) {
    await page.goto(path)
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
    // Skeletons and charts settle before the scan.
    await expect(page.getByRole('status', { name: /^Loading/ })).toHaveCount(0)
    await expectAccessible(page, name)
  }
  expect(watched.pageErrors).toEqual([])
})
