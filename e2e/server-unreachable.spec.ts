// The server goes away while the dashboard is open: the app stays, says so and recovers with
// Retry. And a deploy (the old route chunks gone, the server answering) reloads the page once.
import { expect, test, type Page } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, errorsList, notify, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })


/** A stopped server, as the browser sees it: every request to it, pages, chunks and API alike, is refused. */
async function stopServer(page: Page) {
  const origin = new URL(page.url()).origin
  await page.route(
    (url) => url.origin === origin,
    (route) => route.abort('connectionrefused'),
  )
}

const startServer = (page: Page) => page.unrouteAll({ behavior: 'wait' })

/** A mark on the document: still there means the app was never reloaded. */
const markDocument = (page: Page) => page.evaluate(() => Object.assign(window, { errataE2eMark: 'same document' }))
const documentMark = (page: Page) => page.evaluate(() => (window as { errataE2eMark?: string }).errataE2eMark ?? null)

test('with the server unreachable, navigation shows the app’s own error and Retry recovers', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'unreachable-web')
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'QueueStalledError' }),
    simpleEvent({ errorClass: 'QueueStalledError' }),
    simpleEvent({ errorClass: 'CacheMissError' }),
  ])
  await waitForEvents(api, projectId, 3)

  // The page's timers are Playwright's (time flows as usual), so the end of retries can be run to, not slept for.
  await page.clock.install()
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(2)
  // The trend starts folded: nothing of it is asked for, so the list is all the page loads.
  await expect(page.getByRole('button', { name: 'Show trend' })).toBeVisible()
  await markDocument(page)

  // A new sort: the list's loader cannot reach the API.
  const listRequests: string[] = []
  page.on('request', (request) => {
    if (/\/api\/projects\/[^/]+\/errors\?/.test(request.url())) listRequests.push(request.url())
  })
  await stopServer(page)
  await page.getByLabel('Sort by').selectOption('events')
  const alert = page.getByRole('alert')
  await expect(alert).toContainText('Could not load this project’s errors', { timeout: 20_000 })
  await expect(alert).toContainText('Could not reach the Errata server')
  // Only the list's place says so: the page and its controls stay, and no toast repeats it.
  await expect(page.getByLabel('Sort by')).toHaveValue('events')
  await expect(page.getByText('Could not refresh data')).toHaveCount(0)
  expect(await documentMark(page)).toBe('same document')
  // The failure on show is final: nothing keeps asking behind it (and so could take it away
  // from under the user's Retry). Every timer due in the next 10 s, past the longest retry delay, runs now.
  const triedBeforeShown = listRequests.length
  await page.clock.runFor(10_000)
  // A round trip to the page: a request those timers started has been reported by now.
  await page.evaluate(() => 0)
  expect(listRequests.length).toBe(triedBeforeShown)

  await startServer(page)
  await alert.getByRole('button', { name: 'Retry' }).click()
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(2)
  await expect(page).toHaveURL(/sort=events/)

  // Opening an error: its page's code (a chunk not loaded yet) cannot be fetched either.
  await stopServer(page)
  await page.keyboard.press('j')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/errors/[^/?]+`))
  await expect(alert).toContainText('Could not load this error', { timeout: 20_000 })
  await expect(alert).toContainText('Could not reach the Errata server')
  expect(await documentMark(page)).toBe('same document')

  await startServer(page)
  await alert.getByRole('button', { name: 'Retry' }).click()
  // The error's page is there. Chromium (150 and later) keeps a module whose fetch failed and does
  // not fetch it again in this document, so with the server answering again the Retry reloads the
  // page (route-chunks.ts: a chunk that cannot be loaded from a server that answers); the reload
  // lands on the error, as the user asked.
  await expect(page.getByRole('heading', { name: 'QueueStalledError', level: 1 })).toBeVisible()
  expect(watched.dialogs).toEqual([])
  expect(watched.pageErrors).toEqual([])
})

test('after a deploy, a route chunk that is gone reloads the page once', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'deploy-web')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'StaleBuildError' })])
  await waitForEvents(api, projectId, 1)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(1)

  // The error page's chunks answer 404 to this document, as the old build's file names would
  // after a deploy (every time: a preload on the row's focus may ask first); the reloaded
  // document asks again and gets them (the "new build").
  await page.evaluate(() => Object.assign(window, { oldBuild: true }))
  const fromOldBuild = () => page.evaluate(() => 'oldBuild' in window).catch(() => false)
  const answered404 = new Set<string>()
  await page.route(/\/assets\/projects\._projectId\.errors\._errorId\.index-[^/]*\.js$/, async (route) => {
    if (!(await fromOldBuild())) return route.continue()
    answered404.add(route.request().url())
    return route.fulfill({ status: 404, contentType: 'application/json', body: '{"errors":["not found"]}' })
  })
  let loads = 0
  page.on('load', () => loads++)

  await page.keyboard.press('j')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'StaleBuildError', level: 1 })).toBeVisible({ timeout: 20_000 })
  expect(answered404.size).toBeGreaterThan(0)
  expect(loads).toBe(1)
  expect(watched.pageErrors).toEqual([])
})
