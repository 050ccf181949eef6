import { expect, test, type APIRequestContext } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, notify, shoot, shootNarrow, signIn, waitForIndexing, watchPage, WIDE } from './support.ts'

/** Session counts as @bugsnag/node sends them: per minute, for one release. */
async function sendSessions(request: APIRequestContext, apiKey: string, version: string, startedAt: string, count: number) {
  const response = await request.post('/sessions', {
    headers: { 'Bugsnag-Api-Key': apiKey, 'Bugsnag-Payload-Version': '1', 'Content-Type': 'application/json' },
    data: {
      notifier: { name: 'Bugsnag Node', version: '9.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
      device: { hostname: 'web-1' },
      app: { releaseStage: 'production', version },
      sessionCounts: [{ startedAt, sessionsStarted: count }],
    },
  })
  expect(response.status(), await response.text()).toBe(202)
}

test('sessions and crashed sessions read as crash-free rates per release', async ({ page, request }) => {
  await page.setViewportSize(WIDE)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'stability-app')

  // 40 sessions of 1.0.0 an hour ago, 10 of 2.0.0 a few minutes ago.
  const hourAgo = new Date(Date.now() - 3_600_000)
  const minutesAgo = new Date(Date.now() - 5 * 60_000)
  await sendSessions(request, apiKey, '1.0.0', hourAgo.toISOString(), 40)
  await sendSessions(request, apiKey, '2.0.0', minutesAgo.toISOString(), 10)

  // 1.0.0: one session crashes twice, another once, a third only has a handled error.
  const inSession = (id: string, startedAt: Date, unhandled = true) => ({
    session: { id, startedAt: startedAt.toISOString(), events: { handled: unhandled ? 0 : 1, unhandled: unhandled ? 1 : 0 } },
    ...(unhandled ? {} : { unhandled: false, severity: 'warning', severityReason: { type: 'handledException' } }),
  })
  await notify(request, apiKey, [
    { ...simpleEvent({ errorClass: 'TypeError', appVersion: '1.0.0' }), ...inSession('s-1', hourAgo) },
    { ...simpleEvent({ errorClass: 'RangeError', appVersion: '1.0.0' }), ...inSession('s-1', hourAgo) },
    { ...simpleEvent({ errorClass: 'TypeError', appVersion: '1.0.0' }), ...inSession('s-2', hourAgo) },
    { ...simpleEvent({ errorClass: 'Warning', appVersion: '1.0.0', severity: 'warning' }), ...inSession('s-3', hourAgo, false) },
    // An unhandled event with no session counts nowhere.
    simpleEvent({ errorClass: 'TypeError', appVersion: '1.0.0' }),
  ])
  // 2.0.0: five of its ten sessions crash.
  await notify(
    request,
    apiKey,
    ['a', 'b', 'c', 'd', 'e'].map((id) => ({ ...simpleEvent({ errorClass: 'SyntaxError', appVersion: '2.0.0' }), ...inSession(`t-${id}`, minutesAgo) })),
  )
  await waitForIndexing(request)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Stability' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'stability-app: stability' })).toBeVisible()

  // 50 sessions, 7 crashed: 86.0 %.
  // All time by default, as the errors page.
  await expect(page.getByLabel('Time range')).toHaveValue('all')
  const summary = page.getByRole('region', { name: /Crash-free sessions · All time/ })
  await expect(summary).toContainText('86.0%')
  await expect(summary).toContainText('7 of 50 sessions crashed')
  await expect(summary).toContainText('Poor')

  // Per release numbers are on the Releases page only: one table of releases, linked from here.
  await expect(page.getByRole('table')).toHaveCount(0)
  const byRelease = page.getByRole('region', { name: 'By release' })
  await expect(byRelease).toContainText('2 releases in this period')
  // The rate over time, from the first session, its numbers one click away.
  const overTime = page.getByRole('region', { name: /^Over time · all time \(first session/ })
  await expect(overTime.getByRole('figure', { name: /^Crash-free sessions per (minute|5 minutes), all time/ })).toBeVisible()
  await expect(overTime.locator('.recharts-line-curve, .recharts-line-dot').first()).toBeVisible()
  await shoot(page, 'stability')
  await shootNarrow(page, 'stability')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shootNarrow(page, 'stability-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // The last hour leaves 1.0.0 out (its sessions started an hour ago); the range is in the URL.
  await page.getByLabel('Time range').selectOption('1h')
  await expect(page).toHaveURL(/f=event\.since(:|%3A)eq(:|%3A)1h/)
  await expect(page.getByRole('region', { name: /Crash-free sessions · Last hour/ })).toContainText('50.0%')
  await expect(byRelease).toContainText('1 release in this period')
  await byRelease.getByRole('link', { name: 'See releases' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'stability-app: releases' })).toBeVisible()
  await expect(page.getByRole('main')).toContainText('2.0.0')
  await expect(page.getByRole('main')).toContainText('1.0.0')

  // A project without sessions explains how to send them.
  const quiet = await createProject(api, 'quiet-app')
  await page.goto(`/projects/${quiet.projectId}/stability`)
  await expect(page.getByRole('heading', { name: /No sessions yet — enable session tracking in your notifier: autoTrackSessions/ })).toBeVisible()
  await shoot(page, 'stability-empty')
  await shootNarrow(page, 'stability-empty')

  expect(watched.pageErrors).toEqual([])
})
