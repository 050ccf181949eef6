// Storage on the real server: a project's disk use on its settings page, this server's on the
// organization's settings page, and the banner organization admins see while the server is low
// on disk space (its answer stubbed: the e2e server's disk is not filled; the server's side is
// test/process/low-disk.test.ts).
import { expect, test, type Page } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, expectAccessible, notify, NARROW, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

const SHOTS = '/tmp/storage-shots'

/** The page at 1280 px light and 390 px dark, from the top, for a person to look at. */
async function shootLightAndDark(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: `${SHOTS}/${name}-1280-light.png`, fullPage: true })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize(NARROW)
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
  await page.screenshot({ path: `${SHOTS}/${name}-390-dark.png`, fullPage: true })
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

test('an admin sees what a project and this server take on disk, and the banner while space is low', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey } = await createProject(api, 'storage-web')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'StoredError' }), simpleEvent({ errorClass: 'AnotherStoredError' })])
  await waitForEvents(api, projectId, 2)

  await signIn(page)
  await page.goto(`/projects/${projectId}/settings`)
  const storage = page.getByRole('region', { name: 'Storage' })
  await expect(storage.getByRole('row', { name: /^Events/ })).toContainText('2 events')
  await expect(storage.getByRole('row', { name: /^Total/ })).toContainText(/\d+(\.\d)? KB/)
  await shootLightAndDark(page, 'project-settings')
  await expectAccessible(page)

  await storage.getByRole('link', { name: 'organization settings' }).click()
  await expect(page).toHaveURL(new RegExp(`/organizations/${organizationId}/settings$`))
  const server = page.getByRole('region', { name: 'This server’s storage' })
  await expect(server.getByText('Enough free space')).toBeVisible()
  await expect(server.getByText(/\d+(\.\d)? (MB|GB) \(embedded\)/)).toBeVisible()
  await shootLightAndDark(page, 'organization-settings')
  await expectAccessible(page)

  // The server low on disk space, as its storage endpoint would say: the banner on every page of the organization.
  await page.route(`**/api/organizations/${organizationId}/storage`, async (route) => {
    const answer = (await (await route.fetch()).json()) as { disk: { total_bytes: number; min_free_bytes: number } }
    await route.fulfill({ json: { ...answer, disk: { ...answer.disk, free_bytes: 200 * 1024 ** 2, low: true } } })
  })
  await page.reload()
  const banner = page.getByRole('alert')
  await expect(banner).toContainText('This server is low on disk space.')
  await expect(server.getByText('Low on disk space', { exact: true })).toBeVisible()
  await shootLightAndDark(page, 'organization-settings-low')
  await page.goto(`/projects/${projectId}/errors`)
  await expect(page.getByRole('alert')).toContainText('New errors and source map uploads are refused')
  await shootLightAndDark(page, 'errors-low')
  await expectAccessible(page)
  expect(watched.pageErrors).toEqual([])
})
