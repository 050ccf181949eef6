// Back from an error to the errors list: the keyboard goes on from the error that was opened,
// wherever the list re-sorted it meanwhile, or from nothing (and says so) when it left the list.
import { expect, test } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, errorsByClass, errorsList, notify, rowOf, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

/** The classes of the list's rows, top to bottom. */
const rowClasses = (page: import('@playwright/test').Page) =>
  errorsList(page)
    .getByRole('listitem')
    .evaluateAll((items) => items.map((item) => item.querySelector('a')?.textContent?.trim() ?? ''))

test('Back from an error focuses that error again, wherever the list re-sorted it', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'return-web')
  // One at a time, so the list (last seen, newest first) reads Charlie, Bravo, Alpha.
  for (const errorClass of ['AlphaError', 'BravoError', 'CharlieError']) await notify(request, apiKey, [simpleEvent({ errorClass })])
  await waitForEvents(api, projectId, 3)

  // The page's clock runs as usual; it is moved on below so the cached list is stale on Back.
  await page.clock.install()
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect.poll(() => rowClasses(page)).toEqual(['CharlieError', 'BravoError', 'AlphaError'])
  await page.keyboard.press('j')
  await page.keyboard.press('j')
  await expect(rowOf(page, 'BravoError')).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1 })).toContainText('BravoError')

  // While Bravo is open, Alpha gets a new event and moves to the top: Bravo is now last.
  await notify(request, apiKey, [simpleEvent({ errorClass: 'AlphaError' })])
  await waitForEvents(api, projectId, 4)
  await page.clock.fastForward('00:10')

  await page.goBack()
  await expect.poll(() => rowClasses(page)).toEqual(['AlphaError', 'CharlieError', 'BravoError'])
  await expect(rowOf(page, 'BravoError')).toHaveAttribute('aria-current', 'true')
  await expect(rowOf(page, 'BravoError').getByRole('link')).toBeFocused()
  await page.keyboard.press('i')

  await expect.poll(async () => (await errorsByClass(api, projectId)).get('BravoError')?.status).toBe('ignored')
  const after = await errorsByClass(api, projectId)
  expect([after.get('AlphaError')?.status, after.get('CharlieError')?.status]).toEqual(['open', 'open'])

  // Ignored from the list, Bravo left it and the row closing up under it (Charlie) took the focus.
  await expect(rowOf(page, 'CharlieError')).toHaveAttribute('aria-current', 'true')

  // Fixed on its page, Alpha leaves the open errors: Back focuses nothing, and says why.
  await page.goto(`/projects/${projectId}/errors`)
  await expect.poll(() => rowClasses(page)).toEqual(['AlphaError', 'CharlieError'])
  await expect(rowOf(page, 'CharlieError')).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('k')
  await expect(rowOf(page, 'AlphaError')).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1 })).toContainText('AlphaError')
  await page.getByRole('button', { name: 'Fix', exact: true }).click()
  await expect.poll(async () => (await errorsByClass(api, projectId)).get('AlphaError')?.status).toBe('fixed')
  await page.goBack()
  await expect.poll(() => rowClasses(page)).toEqual(['CharlieError'])
  await expect(page.getByRole('status').filter({ hasText: 'The error you opened is no longer in this list' })).toBeAttached()
  await expect(errorsList(page).locator('[aria-current="true"]')).toHaveCount(0)
  // The keys start again from the top.
  await page.keyboard.press('j')
  await expect(rowOf(page, 'CharlieError')).toHaveAttribute('aria-current', 'true')

  expect(watched.pageErrors).toEqual([])
})
