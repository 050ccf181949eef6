// Discard, undiscard and a linked issue from the dashboard: the error page's bar and the list's
// bulk bar, with the state shown on the page and the rows, and the server agreeing.
import { expect, test, type Page } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, errorsList, NARROW, notify, rowOf, shoot, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

/** The page at 1280 px light and 390 px dark (the shots check that nothing widens the page). */
async function shootLightAndDark(page: Page, name: string) {
  await shoot(page, `${name}-1280-light`)
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize(NARROW)
  await shoot(page, `${name}-390-dark`)
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

interface ApiErrorState {
  error_class: string
  discarded: boolean
  linked_issues: { url: string }[]
}

test('discard an error and link its issue on its page; discard and undiscard from the bulk bar', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'discard-web')
  for (const errorClass of ['AlphaError', 'BravoError']) await notify(request, apiKey, [simpleEvent({ errorClass })])
  await waitForEvents(api, projectId, 2)
  const byClass = async () =>
    new Map((await api.get<ApiErrorState[]>(`/projects/${projectId}/errors?per_page=100`)).map((error) => [error.error_class, error]))

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await errorsList(page).getByRole('link', { name: /^AlphaError/ }).click()
  const actions = page.getByRole('toolbar', { name: 'Error actions' })
  await actions.getByRole('button', { name: 'Discard' }).click()
  await expect(actions.getByRole('button', { name: 'Undiscard' })).toBeVisible()
  await expect(page.getByText(/Discarded: new events are counted/)).toBeVisible()
  await expect.poll(async () => (await byClass()).get('AlphaError')?.discarded).toBe(true)

  await actions.getByRole('button', { name: 'Link issue…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Link an issue' })
  await dialog.getByRole('textbox', { name: 'Issue URL' }).fill('https://tracker.example/issues/12')
  await dialog.getByRole('button', { name: 'Link issue' }).click()
  await expect(page.getByRole('link', { name: 'https://tracker.example/issues/12' })).toBeVisible()
  await expect.poll(async () => (await byClass()).get('AlphaError')?.linked_issues.map((issue) => issue.url)).toEqual([
    'https://tracker.example/issues/12',
  ])
  await expect(actions.getByRole('button', { name: 'Unlink issue' })).toBeVisible()
  await shootLightAndDark(page, 'error-page-discarded-linked')

  // The list: the discarded row says so; the bulk bar discards and undiscards.
  await page.goto(`/projects/${projectId}/errors`)
  await expect(rowOf(page, 'AlphaError')).toContainText('discarded')
  await expect(rowOf(page, 'BravoError')).not.toContainText('discarded')
  await rowOf(page, 'BravoError').getByRole('checkbox').check()
  const toolbar = page.getByRole('toolbar', { name: 'Bulk actions' })
  // Discard, Undiscard and Link issue… are under More: the bar keeps to one line on a laptop.
  const more = toolbar.getByRole('button', { name: 'More' })
  await more.click()
  await expect(page.getByRole('menuitem', { name: /^Undiscard/ })).toBeVisible()
  await shootLightAndDark(page, 'errors-list-bulk-bar')
  await page.getByRole('menuitem', { name: /^Discard/ }).click()
  await expect(rowOf(page, 'BravoError')).toContainText('discarded')
  await expect.poll(async () => (await byClass()).get('BravoError')?.discarded).toBe(true)
  // A bulk action ends by clearing the selection (keeping the failed errors): select again after that.
  await expect(toolbar).toBeHidden()

  await rowOf(page, 'AlphaError').getByRole('checkbox').check()
  await rowOf(page, 'BravoError').getByRole('checkbox').check()
  await more.click()
  await page.getByRole('menuitem', { name: /^Undiscard/ }).click()
  await expect.poll(async () => [...(await byClass()).values()].map((error) => error.discarded)).toEqual([false, false])
  await expect(errorsList(page).getByText('discarded', { exact: true })).toHaveCount(0)
  await expect(toolbar).toBeHidden()

  // Both to one issue at once.
  await rowOf(page, 'AlphaError').getByRole('checkbox').check()
  await rowOf(page, 'BravoError').getByRole('checkbox').check()
  await more.click()
  await page.getByRole('menuitem', { name: 'Link issue…' }).click()
  const linkDialog = page.getByRole('dialog', { name: 'Link an issue' })
  await linkDialog.getByLabel('Issue URL').fill('https://github.com/acme/shop/issues/77')
  await linkDialog.getByRole('button', { name: 'Link issue' }).click()
  await expect
    .poll(async () => [...(await byClass()).values()].map((error) => error.linked_issues.map((issue) => issue.url)))
    .toEqual([['https://github.com/acme/shop/issues/77'], ['https://github.com/acme/shop/issues/77']])

  expect(watched.pageErrors).toEqual([])
})
