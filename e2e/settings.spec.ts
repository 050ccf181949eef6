// Project and organization settings on the real server: rename, regenerate the API key (the old
// key is refused by /notify at once, the new one accepted), delete with the name typed; the rate
// limit (the volume counted before any quota, set, events sampled above it, the dropped count on
// the errors page, removed); what a
// member sees.
import { expect, test, type APIRequestContext } from '@playwright/test'
import { notifyBody, simpleEvent } from './bugsnag-payload.ts'
import { addMember, Api, createProject, notify, shoot, shootAll, shootNarrow, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

/** POST /notify as a notifier would, answering the status (notify() in support.ts insists on 200). */
async function notifyStatus(request: APIRequestContext, apiKey: string): Promise<number> {
  const response = await request.post('/notify', {
    headers: { 'Bugsnag-Api-Key': apiKey, 'Bugsnag-Payload-Version': '4', 'Content-Type': 'application/json' },
    data: notifyBody(apiKey, [simpleEvent({ errorClass: 'KeyRotationError' })]),
  })
  return response.status()
}

test('rename a project, regenerate its API key, delete it', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey: oldKey } = await createProject(api, 'settings-web')
  // A notifier is using the key: the server has it cached.
  await notify(request, oldKey, [simpleEvent({ errorClass: 'BeforeRotationError' })])

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors`)
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).click()
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/settings$`))
  await expect(page.getByRole('heading', { level: 1, name: 'settings-web: settings' })).toBeVisible()
  await expect(page.getByLabel('API key of settings-web', { exact: true })).toHaveText(oldKey)
  await shoot(page, 'project-settings')
  await shootNarrow(page, 'project-settings')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'project-settings-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // Rename: an empty name is refused beside the field, then a good one is saved.
  const name = page.getByLabel('Project name')
  await name.fill('   ')
  await page.getByRole('button', { name: 'Save name' }).click()
  await expect(name).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByText('Project name must not be empty.')).toBeVisible()
  await shoot(page, 'project-settings-invalid')
  await name.fill('settings-renamed')
  await name.press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'settings-renamed: settings' })).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible()
  expect((await api.get<{ name: string }>(`/projects/${projectId}`)).name).toBe('settings-renamed')

  // Regenerate the key, from the keyboard: the warning first, then the new key to copy.
  await page.getByRole('button', { name: 'Regenerate API key' }).focus()
  await page.keyboard.press('Enter')
  const confirm = page.getByRole('dialog', { name: 'Regenerate the API key of settings-renamed?' })
  await expect(confirm).toContainText('will be refused')
  await shoot(page, 'project-settings-regenerate-confirm')
  await confirm.getByRole('button', { name: 'Regenerate key' }).click()
  const result = page.getByRole('dialog', { name: 'New API key for settings-renamed' })
  const newKeyField = result.getByLabel('API key of settings-renamed', { exact: true })
  await expect(newKeyField).toHaveText(/^[0-9a-f]{32}$/)
  const newKey = (await newKeyField.textContent())!
  expect(newKey).not.toBe(oldKey)
  await expect(result.getByRole('button', { name: 'Copy API key of settings-renamed' })).toBeVisible()
  await shoot(page, 'project-settings-new-key')
  await shootNarrow(page, 'project-settings-new-key')
  await result.getByRole('button', { name: 'Done' }).click()
  await expect(result).toBeHidden()
  await expect(page.getByLabel('API key of settings-renamed', { exact: true })).toHaveText(newKey)

  // The old key is refused at once; the new one is accepted.
  expect(await notifyStatus(request, oldKey)).toBe(401)
  expect(await notifyStatus(request, newKey)).toBe(200)

  // Delete: the button waits for the name.
  await page.getByRole('button', { name: 'Delete project' }).click()
  const deletion = page.getByRole('dialog', { name: 'Delete settings-renamed?' })
  const deleteButton = deletion.getByRole('button', { name: 'Delete project' })
  await expect(deleteButton).toBeDisabled()
  await deletion.getByLabel('Type settings-renamed to confirm').fill('settings-renamed')
  await expect(deleteButton).toBeEnabled()
  await shoot(page, 'project-settings-delete-confirm')
  await deleteButton.click()
  await expect(page).toHaveURL(new RegExp(`/organizations/${organizationId}$`))
  await expect(page.getByText('No projects yet')).toBeVisible()
  const gone = await request.get(`/api/projects/${projectId}`, { headers: { Authorization: `token ${api.token}`, 'X-Version': '2' } })
  expect(gone.status()).toBe(404)

  expect(watched.pageErrors).toEqual([])
})

test('set a rate limit; events above it are sampled and the errors page says how many were dropped', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'rate-limited-web')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'BeforeLimitError' })])
  await waitForEvents(api, projectId, 1)

  await signIn(page)
  await page.goto(`/projects/${projectId}/settings`)
  const section = page.getByRole('region', { name: 'Rate limit' })
  const perMinute = section.getByLabel('Events per minute')
  await expect(perMinute).toHaveValue('')
  // Without a quota the events are counted all the same: the volume to choose one from.
  const volume = section.getByRole('region', { name: 'Events received' })
  await expect(volume.getByText('Last hour').locator('xpath=following-sibling::dd')).toHaveText('1')
  await expect(volume.getByRole('img', { name: /^1 event in the last 24 hours/ })).toBeVisible()
  await shootAll(page, 'project-settings-rate-limit-volume')
  // Not a whole number: said under the field, nothing sent.
  await perMinute.fill('five')
  await section.getByRole('button', { name: 'Save rate limit' }).click()
  await expect(perMinute).toHaveAttribute('aria-invalid', 'true')
  await expect(section.getByText('Events per minute must be a whole number of events, or empty for no limit.')).toBeVisible()
  await shoot(page, 'project-settings-rate-limit-invalid')
  await perMinute.fill('5')
  await perMinute.press('Enter')
  await expect(section.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible()
  expect((await api.get<{ events_per_minute: number | null }>(`/projects/${projectId}/rate_limit`)).events_per_minute).toBe(5)

  // 20 events in one request, so in one minute. The first event counts in its minute too: in
  // another minute the flood is events 1–20 (5 kept, then 6, 8, 10, 12, 15, 16, 20: 8 dropped,
  // docs/ingestion.md), in the same one events 2–21 (9 dropped).
  await notify(request, apiKey, Array.from({ length: 20 }, () => simpleEvent({ errorClass: 'FloodError' })))
  type Limit = { events_last_hour: number; dropped_last_24h: number }
  await expect.poll(async () => (await api.get<Limit>(`/projects/${projectId}/rate_limit`)).events_last_hour, { timeout: 20_000 }).toBe(21)
  const dropped = (await api.get<Limit>(`/projects/${projectId}/rate_limit`)).dropped_last_24h
  expect([8, 9]).toContain(dropped)
  await waitForEvents(api, projectId, 21 - dropped)
  await page.goto(`/projects/${projectId}/errors`)
  const notice = page.getByRole('status').filter({ hasText: 'dropped by rate limiting' })
  await expect(notice).toHaveText(new RegExp(`${dropped} events dropped by rate limiting in the last 24\\sh`))
  await shoot(page, 'project-errors-rate-limited')
  await shootNarrow(page, 'project-errors-rate-limited')
  await notice.getByRole('link', { name: 'Rate limit settings' }).click()
  await expect(section.getByText(new RegExp(`${dropped} events dropped by rate limiting in the last 24\\sh`))).toBeVisible()
  await expect(volume.getByText('Last hour').locator('xpath=following-sibling::dd')).toHaveText('21')
  await shoot(page, 'project-settings-rate-limit')
  await shootNarrow(page, 'project-settings-rate-limit')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'project-settings-rate-limit-dark')
  await page.emulateMedia({ colorScheme: 'light' })

  // Removing it: no limit again.
  await section.getByRole('button', { name: 'Remove rate limit' }).click()
  await expect(perMinute).toHaveValue('')
  await expect(section.getByRole('button', { name: 'Remove rate limit' })).toHaveCount(0)
  expect((await api.get<{ events_per_minute: number | null }>(`/projects/${projectId}/rate_limit`)).events_per_minute).toBeNull()
  expect(watched.pageErrors).toEqual([])
})

test('rename and delete an organization; members only read the settings', async ({ page, browser, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId } = await createProject(api, 'settings-org')
  const organizationName = (await api.get<{ name: string }>(`/organizations/${organizationId}`)).name
  const member = { email: `member-${Date.now().toString(36)}@example.com`, password: 'member-password-123' }
  await addMember(api, organizationId, { ...member, name: 'Mia Member' })

  // The member sees the settings but cannot change them.
  const memberContext = await browser.newContext({ viewport: WIDE })
  const memberPage = await memberContext.newPage()
  await signIn(memberPage, member.email, member.password)
  await memberPage.goto(`/projects/${projectId}/settings`)
  await expect(memberPage.getByText('Only organization admins can rename or delete this project, regenerate its API key or change its rate limit or data retention.')).toBeVisible()
  await expect(memberPage.getByRole('button', { name: /Regenerate|Delete|Save/ })).toHaveCount(0)
  await shoot(memberPage, 'project-settings-member')
  await memberPage.goto(`/organizations/${organizationId}/settings`)
  await expect(memberPage.getByText('Only organization admins can rename or delete this organization.')).toBeVisible()
  await expect(memberPage.getByRole('button', { name: /Delete|Save/ })).toHaveCount(0)
  await memberContext.close()

  await signIn(page)
  await page.goto(`/organizations/${organizationId}`)
  await page.getByRole('link', { name: 'Organization settings' }).click()
  await expect(page.getByRole('heading', { level: 1, name: `${organizationName}: settings` })).toBeVisible()
  await shoot(page, 'organization-settings')
  await shootNarrow(page, 'organization-settings')

  const renamed = `${organizationName} renamed`
  await page.getByLabel('Organization name').fill(renamed)
  await page.getByRole('button', { name: 'Save name' }).click()
  await expect(page.getByRole('heading', { level: 1, name: `${renamed}: settings` })).toBeVisible()

  await page.getByRole('button', { name: 'Delete organization' }).click()
  const deletion = page.getByRole('dialog', { name: `Delete ${renamed}?` })
  await deletion.getByLabel(`Type ${renamed} to confirm`).fill(renamed)
  await shootNarrow(page, 'organization-settings-delete-confirm')
  await deletion.getByRole('button', { name: 'Delete organization' }).click()
  await expect(page).toHaveURL(/\/organizations\/?$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Organizations' })).toBeVisible()
  await expect(page.getByRole('link', { name: renamed })).toHaveCount(0)
  expect(watched.pageErrors).toEqual([])
})
