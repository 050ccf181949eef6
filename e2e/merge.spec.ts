// Merging errors on the real server and a real browser: two errors merged from the list's bulk
// bar, the survivor's page listing the merged one, and Unmerge putting both back.
import { expect, test } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, errorsList, expectAccessible, notify, rowOf, shootAll, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

test('merge two errors from the list, then unmerge them from the error page', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'merge-web')
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'CheckoutTimeout' }),
    simpleEvent({ errorClass: 'CheckoutTimeout' }),
    simpleEvent({ errorClass: 'PaymentGatewayTimeout' }),
  ])
  await waitForEvents(api, projectId, 3)

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(2)
  await rowOf(page, 'CheckoutTimeout').getByRole('checkbox').check()
  await rowOf(page, 'PaymentGatewayTimeout').getByRole('checkbox').check()
  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Merge…' }).click()

  const dialog = page.getByRole('dialog', { name: 'Merge 2 errors' })
  await expect(dialog.getByRole('radio')).toHaveCount(2)
  await dialog.getByRole('radio', { name: /CheckoutTimeout/ }).check()
  await shootAll(page, 'merge-dialog')
  await dialog.getByRole('button', { name: 'Merge 2 errors' }).click()
  await expect(page.getByText('1 error merged into CheckoutTimeout')).toBeVisible()
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(1)
  await expect(rowOf(page, 'CheckoutTimeout')).toContainText('3')

  await rowOf(page, 'CheckoutTimeout').getByRole('link', { name: /^CheckoutTimeout:/ }).click()
  const merged = page.getByRole('region', { name: 'Merged into this error' })
  await expect(merged.getByRole('link', { name: 'PaymentGatewayTimeout' })).toBeVisible()
  await expect(merged).toContainText('1 event')
  await expect(page.getByRole('list', { name: 'Status changes' })).toContainText('merged PaymentGatewayTimeout into this')
  await shootAll(page, 'merge-error-page')
  await expectAccessible(page)

  await merged.getByRole('button', { name: 'Unmerge…' }).click()
  await page.getByRole('dialog', { name: 'Unmerge 1 error?' }).getByRole('button', { name: 'Unmerge 1 error' }).click()
  await expect(page.getByText('1 error unmerged')).toBeVisible()
  await expect(merged).toHaveCount(0)

  await page.goto(`/projects/${projectId}/errors`)
  await expect(errorsList(page).getByRole('listitem')).toHaveCount(2)
  await expect(rowOf(page, 'PaymentGatewayTimeout')).toBeVisible()
  expect(watched.pageErrors).toEqual([])
})
