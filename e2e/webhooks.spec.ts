// An admin sets up a webhook on the real server: creates it (the secret shown once), sends a
// test that a real receiver on 127.0.0.1 gets, sees it in the delivery log, redelivers it; then
// writes a comment on an error, which the webhook reports too.
import { expect, test } from '@playwright/test'
import { startWebhookReceiver, type WebhookReceiver } from '../server/test-support/webhook-receiver.ts'
import { simpleEvent } from './bugsnag-payload.ts'
import { Api, createProject, expectAccessible, notify, shootAll, signIn, waitForEvents, watchPage, WIDE } from './support.ts'

test.use({ viewport: WIDE })

let receiver: WebhookReceiver
test.beforeAll(async () => {
  receiver = await startWebhookReceiver()
})
test.afterAll(async () => {
  await receiver?.close()
})

test('an admin creates a webhook, sends a test, redelivers it, and a comment is reported', async ({ page, request }) => {
  test.setTimeout(120_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'webhooks-web')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'CheckoutError' })])
  await waitForEvents(api, projectId, 1)

  await signIn(page)
  await page.goto(`/projects/${projectId}/webhooks`)
  await expect(page.getByRole('heading', { name: 'webhooks-web: webhooks' })).toBeVisible()
  await expect(page.getByText('No webhooks yet')).toBeVisible()
  await expectAccessible(page)
  await shootAll(page, 'webhooks-empty')

  // Create: target URL and triggers.
  await page.getByRole('button', { name: 'Add webhook' }).click()
  await page.getByLabel('Target URL').fill(receiver.url)
  await page.getByLabel('Comment on an error').check()
  await expect(page.getByLabel('New error (first event per release stage)')).toBeChecked()
  await expectAccessible(page)
  await shootAll(page, 'webhooks-form')
  await page.getByRole('button', { name: 'Create webhook' }).click()
  const secret = page.getByRole('region', { name: 'New webhook secret' })
  await expect(secret).toBeVisible()
  await expect(secret.getByRole('textbox')).toHaveValue(/^whsec_[0-9a-f]{64}$/)
  await secret.getByRole('button', { name: 'I have copied it' }).click()
  await expect(secret).toBeHidden()
  const card = page.getByRole('list', { name: 'Webhooks' }).getByRole('listitem').first()
  await expect(card.getByText(receiver.url)).toBeVisible()

  // A test notification: the receiver gets it, and the log shows it delivered.
  await card.getByRole('button', { name: 'Send test' }).click()
  await expect(page).toHaveURL(/[?&]webhook=/)
  const log = card.getByRole('list', { name: `Deliveries of ${receiver.url}` })
  await expect(log.getByText('delivered')).toBeVisible({ timeout: 20_000 })
  const [first] = await receiver.waitFor(1)
  expect(first!.json.trigger).toEqual({ type: 'firstException', message: 'This is a test notification from Errata.' })
  await log.getByText('Attempts and payload').click()
  await expect(log.getByLabel('Payload sent')).toContainText('This is a test notification from Errata.')
  await expectAccessible(page)
  await shootAll(page, 'webhooks-delivery-log')

  // Redeliver: the same delivery id again.
  await log.getByRole('button', { name: /^Redeliver/ }).click()
  const [, again] = await receiver.waitFor(2)
  expect(again!.headers['x-errata-delivery']).toBe(first!.headers['x-errata-delivery'])
  await expect(log.getByText('2 attempts, last HTTP 200')).toBeVisible({ timeout: 20_000 })

  // Disable, enable.
  await card.getByRole('button', { name: 'Disable' }).click()
  await expect(card.getByText('Disabled', { exact: true })).toBeVisible()
  await card.getByRole('button', { name: 'Enable' }).click()
  await expect(card.getByText('Enabled', { exact: true })).toBeVisible()

  // A comment on the error page is reported.
  const [error] = await api.get<{ id: string }[]>(`/projects/${projectId}/errors`)
  await page.goto(`/projects/${projectId}/errors/${error!.id}`)
  await page.getByLabel('Add a comment').fill('Looking into it <b>now</b>')
  await page.getByRole('button', { name: 'Post comment' }).click()
  const comments = page.getByRole('list', { name: 'Comments' })
  await expect(comments.getByText('Looking into it <b>now</b>')).toBeVisible()
  const [, , commented] = await receiver.waitFor(3)
  expect(commented!.json.trigger).toEqual({ type: 'comment', message: 'New comment' })
  expect((commented!.json.comment as { message: string }).message).toBe('Looking into it <b>now</b>')
  await expectAccessible(page)
  await shootAll(page, 'error-comments')

  expect(watched.pageErrors).toEqual([])
  expect(watched.dialogs).toEqual([])
})

test('an admin sends a Slack message: the form names the address to paste, the list and the log show the format', async ({ page, request }) => {
  test.setTimeout(120_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId } = await createProject(api, 'webhooks-chat')
  const from = receiver.received.length

  await signIn(page)
  await page.goto(`/projects/${projectId}/webhooks`)
  await page.getByRole('button', { name: 'Add webhook' }).click()
  await page.getByLabel('Format').selectOption({ label: 'Slack' })
  await expect(page.getByText(/A Slack incoming webhook URL/)).toBeVisible()
  await page.getByLabel('Target URL').fill(receiver.url)
  await expectAccessible(page)
  await shootAll(page, 'webhooks-chat-form')
  await page.getByRole('button', { name: 'Create webhook' }).click()
  await page.getByRole('region', { name: 'New webhook secret' }).getByRole('button', { name: 'I have copied it' }).click()
  const card = page.getByRole('list', { name: 'Webhooks' }).getByRole('listitem').first()
  await expect(card.getByText('Slack', { exact: true })).toBeVisible()

  await card.getByRole('button', { name: 'Send test' }).click()
  const log = card.getByRole('list', { name: `Deliveries of ${receiver.url}` })
  await expect(log.getByText('delivered')).toBeVisible({ timeout: 20_000 })
  const got = await receiver.waitFor(from + 1)
  const body = got[from]!.json as { text: string; blocks: { type: string }[] }
  expect(body.text).toBe('Test notification for webhooks-chat')
  expect(body.blocks[0]!.type).toBe('header')
  await log.getByText('Attempts and payload').click()
  await expect(log.getByLabel('Payload sent')).toContainText('Test notification for webhooks-chat')
  await expectAccessible(page)
  await shootAll(page, 'webhooks-chat-log')

  expect(watched.pageErrors).toEqual([])
  expect(watched.dialogs).toEqual([])
})
