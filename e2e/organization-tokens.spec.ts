// Organization API tokens on the real server: an admin makes one in organization settings, copies
// the secret shown once, a script uses it on the legacy v1 API (no X-Version header), and once
// revoked the script gets 401.
import { expect, test } from '@playwright/test'
import { Api, createProject, shootAll, signIn, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

test('create an organization API token, use it on the legacy API, revoke it', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId } = await createProject(api, 'legacy-tokens')

  await signIn(page)
  await page.goto(`/organizations/${organizationId}/settings`)
  await page.getByRole('link', { name: 'Manage API tokens' }).click()
  await expect(page).toHaveURL(new RegExp(`/organizations/${organizationId}/api-tokens$`))
  await expect(page.getByText('No API tokens')).toBeVisible()
  await shootAll(page, 'organization-tokens-empty')

  await page.getByLabel('Name').fill('Deploy pipeline')
  await page.getByRole('button', { name: 'Create token' }).click()
  const secret = page.getByLabel('Token “Deploy pipeline”')
  await expect(secret).toHaveValue(/^errata_org_[0-9a-f]{40}$/)
  const token = await secret.inputValue()
  await expect(page.getByRole('table', { name: "The organization's API tokens" }).getByText('Deploy pipeline')).toBeVisible()
  await shootAll(page, 'organization-tokens-created')

  // A legacy script: no X-Version, the organization's token.
  const legacy = await request.get(`/api/accounts/${organizationId}/projects`, { headers: { Authorization: `token ${token}` } })
  expect(legacy.status()).toBe(200)
  expect(legacy.headers()['deprecation']).toBe('true')
  expect(((await legacy.json()) as { id: string }[]).map((p) => p.id)).toContain(projectId)

  await page.getByRole('button', { name: 'I have copied it' }).click()
  await page.reload()
  await expect(page.getByRole('table', { name: "The organization's API tokens" }).getByText('Never')).toHaveCount(0)
  await shootAll(page, 'organization-tokens-list')
  await page.getByRole('button', { name: /^Revoke API token Deploy pipeline/ }).click()
  const dialog = page.getByRole('dialog', { name: 'Revoke the API token “Deploy pipeline”?' })
  await dialog.getByRole('button', { name: 'Revoke' }).click()
  await expect(page.getByText('No API tokens')).toBeVisible()
  expect((await request.get(`/api/accounts/${organizationId}/projects`, { headers: { Authorization: `token ${token}` } })).status()).toBe(401)
  expect(watched.pageErrors).toEqual([])
})
