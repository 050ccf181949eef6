// A privacy officer answers a data-subject request on the real server: from one of the person's
// events to the privacy page, exports their events and downloads the file, then deletes them
// after confirming the count, watching each request's state change on the page.
import { readFileSync } from 'node:fs'
import { expect, test } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, expectAccessible, notify, shoot, shootAll, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

const jane = { id: 'jane-42', email: 'jane@example.com', name: 'Jane Roe' }
const other = { id: 'sam-7', email: 'sam@example.com', name: 'Sam Poe' }

test('a privacy officer exports a user’s events, downloads them, then deletes them with confirmation', async ({ page, request }) => {
  test.setTimeout(120_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey } = await createProject(api, 'privacy-web')
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'CheckoutError', user: jane }),
    simpleEvent({ errorClass: 'CheckoutError', user: other }),
    simpleEvent({ errorClass: 'CartError', user: jane, releaseStage: 'staging' }),
    simpleEvent({ errorClass: 'ProfileError', user: jane }),
    simpleEvent({ errorClass: 'CartError', user: other }),
  ])
  await waitForEvents(api, projectId, 5)
  const [janesEvent] = await api.get<{ id: string; error_id: string }[]>(
    `/projects/${projectId}/events?per_page=1&filters[user.id][][type]=eq&filters[user.id][][value]=${jane.id}`,
  )

  // From one of Jane's events to the privacy page, Jane prefilled.
  await signIn(page)
  await page.goto(`/projects/${projectId}/errors/${janesEvent!.error_id}/events/${janesEvent!.id}`)
  await page.getByRole('region', { name: 'User' }).getByRole('link', { name: 'Export or delete this user’s data' }).click()
  await expect(page).toHaveURL(new RegExp(`/organizations/${organizationId}/privacy\\?f=user.id:eq:${jane.id}$`))
  await expect(page.getByRole('heading', { level: 1, name: /privacy requests$/ })).toBeVisible()
  await expect(page.getByLabel(/User id/)).toHaveValue(jane.id)
  await expect(page.getByRole('status').filter({ hasText: '3 matching events' })).toBeVisible()
  await expect(page.getByRole('list', { name: 'Newest matching events' }).getByRole('listitem')).toHaveCount(3)
  await expect(page.getByText('No requests yet')).toBeVisible()
  await shootAll(page, 'privacy-selection')

  // Export: Preparing, then Completed on its own, then the file.
  await page.getByRole('button', { name: 'Export their data' }).click()
  const exportRow = page.getByRole('article', { name: `Export: User id is ${jane.id}` })
  await expect(exportRow).toBeVisible()
  await expect(exportRow.getByTitle('COMPLETED')).toBeVisible({ timeout: 20_000 })
  await expect(exportRow).toContainText('3 events')
  await expect(exportRow).toContainText('kept 7 more days')
  const downloading = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download file' }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^errata-event-data-[0-9a-f]{24}\.jsonl$/)
  const lines = readFileSync((await download.path())!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { user: { id: string }; device: object; project_name: string })
  expect(lines).toHaveLength(3)
  expect(lines.every((line) => line.user.id === jane.id && line.project_name === 'privacy-web' && typeof line.device === 'object')).toBe(true)

  // Deletion: counted first, confirmed by typing the count, then watched until complete.
  await page.getByRole('button', { name: 'Delete their events…' }).click()
  const deletionRow = page.getByRole('article', { name: `Deletion: User id is ${jane.id}` })
  await expect(deletionRow.getByTitle('AWAITING_CONFIRMATION')).toBeVisible({ timeout: 20_000 })
  await expect(deletionRow).toContainText('3 events to delete')
  await expectAccessible(page)
  await shootAll(page, 'privacy-requests')
  await page.getByRole('button', { name: 'Confirm deletion…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete 3 events for good?' })
  const confirm = dialog.getByRole('button', { name: 'Delete events' })
  await expect(confirm).toBeDisabled()
  await dialog.getByLabel('Type 3 to confirm').fill('3')
  await shoot(page, 'privacy-confirm')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'privacy-confirm-dark')
  await page.emulateMedia({ colorScheme: 'light' })
  await confirm.click()
  await expect(dialog).toBeHidden()
  await expect(deletionRow.getByTitle('COMPLETED')).toBeVisible({ timeout: 20_000 })
  await expect(deletionRow).toContainText('3 events deleted')
  await expect(deletionRow).toContainText(`Confirmed by`)
  // The earlier export held those events: its file is gone too.
  await expect(exportRow).toContainText('removed by a later deletion')
  await expect(page.getByRole('button', { name: 'Download file' })).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: '0 matching events' })).toBeVisible()
  await shootAll(page, 'privacy-completed')

  // Nothing of Jane's is left; Sam's events are.
  const remaining = await api.get<{ user: { id: string } }[]>(`/projects/${projectId}/events?per_page=100`)
  expect(remaining.map((e) => e.user.id)).toEqual([other.id, other.id])
  const errors = await api.get<{ error_class: string; events: number; users: number }[]>(`/projects/${projectId}/errors?per_page=100`)
  expect(errors.map((e) => [e.error_class, e.events, e.users]).sort()).toEqual([
    ['CartError', 1, 1],
    ['CheckoutError', 1, 1],
  ])
  expect(watched.pageErrors).toEqual([])
})

test('an email that is part of several people’s is said before deleting, and narrowed to one person by user id or whole email', async ({ page, request }) => {
  test.setTimeout(120_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey } = await createProject(api, 'privacy-substring')
  const janet = { id: 'janet-9', email: 'janet@example.com', name: 'Janet Poe' }
  const byEmailOnly = { email: 'jane.doe@example.org' }
  await notify(request, apiKey, [
    simpleEvent({ errorClass: 'CheckoutError', user: jane }),
    simpleEvent({ errorClass: 'CartError', user: jane }),
    simpleEvent({ errorClass: 'CheckoutError', user: janet }),
    simpleEvent({ errorClass: 'CheckoutError', user: byEmailOnly }),
    simpleEvent({ errorClass: 'CheckoutError', user: other }),
  ])
  await waitForEvents(api, projectId, 5)

  await signIn(page)
  // "jane" is part of Jane's email, Janet's, and one without a user id.
  await page.goto(`/organizations/${organizationId}/privacy?f=user.email:eq:jane`)
  await expect(page.getByRole('status').filter({ hasText: '4 matching events' })).toBeVisible()
  const matched = page.getByRole('region', { name: 'Matching people' })
  await expect(matched).toContainText('3 different people')
  await expect(matched.getByRole('listitem')).toHaveCount(3)
  await expect(matched.getByRole('listitem').first()).toContainText('jane@example.com')
  await expectAccessible(page)
  await shootAll(page, 'privacy-people')

  await page.getByRole('button', { name: 'Delete their events…' }).click()
  const deletionRow = page.getByRole('article', { name: 'Deletion: User email contains jane' })
  await expect(deletionRow.getByTitle('AWAITING_CONFIRMATION')).toBeVisible({ timeout: 20_000 })
  await page.getByRole('button', { name: 'Confirm deletion…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete 4 events for good?' })
  await expect(dialog.getByRole('alert')).toHaveText(
    // One event each, received together: in the order of their id or email.
    'This matches 3 different people: jane@example.com, jane.doe@example.org and janet@example.com.',
  )
  await shoot(page, 'privacy-people-confirm')
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize({ width: 390, height: 844 })
  await shoot(page, 'privacy-people-confirm-narrow-dark')
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toBeHidden()

  // Only Jane, exactly: by her user id, in the URL.
  await matched.getByRole('button', { name: 'Only this person: jane@example.com' }).click()
  await expect(page).toHaveURL(new RegExp(`/organizations/${organizationId}/privacy\\?f=user.id(:|%3A)eq(:|%3A)${jane.id}$`))
  await expect(page.getByRole('status').filter({ hasText: '2 matching events' })).toBeVisible()
  await expect(page.getByRole('region', { name: 'Matching people' })).toContainText('1 person')
  await page.getByRole('button', { name: 'Delete their events…' }).click()
  const janesDeletion = page.getByRole('article', { name: `Deletion: User id is ${jane.id}` })
  await expect(janesDeletion.getByTitle('AWAITING_CONFIRMATION')).toBeVisible({ timeout: 20_000 })
  await page.getByRole('listitem').filter({ has: janesDeletion }).getByRole('button', { name: 'Confirm deletion…' }).click()
  const janesDialog = page.getByRole('dialog', { name: 'Delete 2 events for good?' })
  await expect(janesDialog).toContainText('One person: jane@example.com.')
  await expect(janesDialog.getByRole('alert')).toHaveCount(0)
  await janesDialog.getByLabel('Type 2 to confirm').fill('2')
  await janesDialog.getByRole('button', { name: 'Delete events' }).click()
  await expect(janesDeletion.getByTitle('COMPLETED')).toBeVisible({ timeout: 20_000 })
  // Janet's and the others' events are still there.
  const remaining = await api.get<{ user: { id: string | null; email: string | null } }[]>(`/projects/${projectId}/events?per_page=100`)
  expect(remaining.map((e) => e.user.email).sort()).toEqual(['jane.doe@example.org', 'janet@example.com', 'sam@example.com'])

  // Someone without a user id, exactly: by their whole email address (not every address containing it).
  await page.goto(`/organizations/${organizationId}/privacy?f=user.email:eq:jane`)
  await expect(page.getByRole('status').filter({ hasText: '2 matching events' })).toBeVisible()
  await page.getByRole('region', { name: 'Matching people' }).getByRole('button', { name: 'Only this person: jane.doe@example.org' }).click()
  await expect(page.getByRole('status').filter({ hasText: '1 matching event' })).toBeVisible()
  await expect(page.getByRole('checkbox', { name: 'This whole address only' })).toBeChecked()
  await expect(page.getByLabel('User email (exactly)')).toHaveValue('jane.doe@example.org')
  await page.getByRole('button', { name: 'Export their data' }).click()
  await expect(page.getByRole('article', { name: 'Export: User email is exactly jane.doe@example.org' })).toBeVisible()
  expect(watched.pageErrors).toEqual([])
})
