import { createRequire } from 'node:module'
import { expect, test, type APIRequestContext } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, notify, shoot, shootNarrow, signIn, waitForIndexing, watchPage, WIDE } from './support.ts'

type ReportBuild = (build: Record<string, unknown>, options: { endpoint: string; logger: Record<string, () => void> }) => Promise<void>
const reportBuild = createRequire(import.meta.url)('bugsnag-build-reporter') as ReportBuild
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

async function sendSessions(request: APIRequestContext, apiKey: string, version: string, count: number) {
  const response = await request.post('/sessions', {
    headers: { 'Bugsnag-Api-Key': apiKey, 'Bugsnag-Payload-Version': '1', 'Content-Type': 'application/json' },
    data: {
      notifier: { name: 'Bugsnag Node', version: '9.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
      app: { releaseStage: 'production', version },
      sessionCounts: [{ startedAt: new Date().toISOString(), sessionsStarted: count }],
    },
  })
  expect(response.status(), await response.text()).toBe(202)
}

test('the releases page lists versions newest first with their figures against the previous version, and leads to each release’s errors', async ({ page, request, baseURL }) => {
  await page.setViewportSize(WIDE)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey } = await createProject(api, 'releases-app')

  // 1.0.0 seen first, then 1.1.0, then a reported build of 2.0.0 that its sessions and errors follow.
  await notify(request, apiKey, [simpleEvent({ errorClass: 'LegacyError', appVersion: '1.0.0' })])
  await sendSessions(request, apiKey, '1.0.0', 50)
  await waitForIndexing(request)
  await sendSessions(request, apiKey, '1.1.0', 20)
  await reportBuild(
    {
      apiKey,
      appVersion: '2.0.0',
      releaseStage: 'production',
      builderName: 'release-bot',
      sourceControl: { provider: 'github', repository: 'https://github.com/acme/releases-app', revision: '4f2c9e1d0b7a' },
    },
    { endpoint: baseURL!, logger: quiet },
  )
  await sendSessions(request, apiKey, '2.0.0', 10)
  const crash = (id: string) => ({
    ...simpleEvent({ errorClass: 'CheckoutError', appVersion: '2.0.0' }),
    session: { id, startedAt: new Date().toISOString(), events: { handled: 0, unhandled: 1 } },
  })
  await notify(request, apiKey, [crash('s-1'), crash('s-2')])
  await waitForIndexing(request)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Releases' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'releases-app: releases' })).toBeVisible()

  const items = page.getByRole('list', { name: 'Releases' }).getByRole('listitem')
  await expect(items).toHaveCount(3)
  await expect(items.nth(0).getByRole('heading', { level: 3 })).toHaveText(/2\.0\.0\s*production/)
  await expect(items.nth(0)).toContainText('by release-bot')
  await expect(items.nth(0)).toContainText('80.0%')
  await expect(items.nth(0).getByRole('link', { name: '4f2c9e1d0b7a' })).toHaveAttribute('href', 'https://github.com/acme/releases-app/commit/4f2c9e1d0b7a')
  await expect(items.nth(1).getByRole('heading', { level: 3 })).toHaveText(/1\.1\.0\s*production/)
  await expect(items.nth(2).getByRole('heading', { level: 3 })).toHaveText(/1\.0\.0\s*production/)
  await expect(items.nth(2)).toContainText('100.0%')
  // Each against the previous version of its stage, in words; adoption is a share of the stage's last-24-hour sessions (10 of 80).
  await expect(items.nth(0)).toContainText('down 20.0 points from 1.1.0')
  await expect(items.nth(0)).toContainText('1 more than 1.1.0')
  await expect(items.nth(0)).toContainText(/Adoption · last 24 hours\s*13%/)
  await expect(items.nth(2)).toContainText(/Adoption · last 24 hours\s*63%/)
  await shoot(page, 'releases')
  await shootNarrow(page, 'releases')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'releases-dark')
  await shootNarrow(page, 'releases-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // From a release to its errors: the errors list filtered by that version and stage.
  await items.nth(0).getByRole('link', { name: /Errors in 2\.0\.0/ }).click()
  await expect(page).toHaveURL(/\/errors\?.*app\.version/)
  await expect(page.getByText('CheckoutError').first()).toBeVisible()
  await expect(page.getByText('LegacyError')).toHaveCount(0)

  // The error page says which release the error was first seen in.
  await page.getByText('CheckoutError').first().click()
  await expect(page.getByText(/in\s*2\.0\.0\s*\(production\)/)).toBeVisible()

  // Bugsnag's dashboard address of the error (/{organization slug}/{project slug}/errors/{id}),
  // which Bugsnag's API clients build, leads to the same page.
  const errorId = /\/errors\/([^/?#]+)/.exec(new URL(page.url()).pathname)![1]!
  const organization = await api.get<{ slug: string }>(`/organizations/${organizationId}`)
  const project = await api.get<{ slug: string }>(`/projects/${projectId}`)
  await page.goto(`/${organization.slug}/${project.slug}/errors/${errorId}`)
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/errors/${errorId}`))
  await expect(page.getByText(/in\s*2\.0\.0\s*\(production\)/)).toBeVisible()

  // A project without releases says how to get one.
  const empty = await createProject(api, 'no-releases-app')
  await page.goto(`/projects/${empty.projectId}/releases`)
  await expect(page.getByRole('heading', { name: 'No releases yet' })).toBeVisible()
  await shoot(page, 'releases-empty')

  expect(watched.pageErrors).toEqual([])
})
