// Data retention in a project's settings on the real server: an admin keeps events for a number
// of days of the project's own, then goes back to the server's default; the error's events say
// how long they are kept.
import { expect, test } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, expectAccessible, notify, shootAll, signIn, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

test('an admin sets how long events are kept; the events list says so', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'retention-web')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'RetentionError' })])

  await signIn(page)
  await page.goto(`/projects/${projectId}/settings`)
  const section = page.getByRole('region', { name: 'Data retention' })
  await expect(section.getByRole('radio', { name: 'The server’s default (90 days)' })).toBeChecked()
  await section.getByRole('radio', { name: 'A number of days' }).check()
  await section.getByRole('textbox', { name: 'Days to keep events' }).fill('30')
  await section.getByRole('button', { name: 'Save retention' }).click()
  await expect(section.getByText('Saved.')).toBeVisible()
  expect(await api.get<{ effective_event_retention_days: number }>(`/projects/${projectId}`)).toMatchObject({ effective_event_retention_days: 30 })
  await section.scrollIntoViewIfNeeded()
  await shootAll(page, 'project-settings-retention')
  await expectAccessible(page)

  await page.goto(`/projects/${projectId}/errors`)
  await page.getByRole('link', { name: /^RetentionError:/ }).click()
  await expect(page.getByText('Events are kept for 30 days after they arrive; older ones are deleted.')).toBeVisible()
  await shootAll(page, 'error-events-retention')

  await page.goto(`/projects/${projectId}/settings`)
  await section.getByRole('radio', { name: 'The server’s default (90 days)' }).check()
  await section.getByRole('button', { name: 'Save retention' }).click()
  await expect(section.getByText('Saved.')).toBeVisible()
  expect(await api.get<{ event_retention_days: number | null }>(`/projects/${projectId}`)).toMatchObject({ event_retention_days: null })
  expect(watched.pageErrors).toEqual([])
})
