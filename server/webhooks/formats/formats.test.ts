// Chat formats end to end: one local receiver per service gets the deliveries of a webhook in
// that format, and each body is checked against the service's documented shape (required keys,
// types, limits) and for a hostile error message that must stay text. Plus the format's
// validation on create and PATCH, and the limits of each format on a huge message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_TRIGGERS, type Webhook, type WebhookDelivery, type WebhookFormat } from '../../../contract/webhooks.ts'
import { parseAllowList } from '../../outbound/allow-list.ts'
import { notifierEvent } from '../../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../../test-support/seed.ts'
import { createTestContext, type TestContext } from '../../test-support/test-app.ts'
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../../test-support/webhook-receiver.ts'
import { formatBody } from './format-body.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>

const CHAT_FORMATS = ['slack', 'discord', 'teams', 'mattermost'] as const
const HOSTILE = '<!channel> @everyone <script>alert(1)</script> & [click](http://evil.example)'
const len = (s: string) => Array.from(s).length

/** Every string in the body, to look for what must not be there. */
const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(strings) : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : []

/** https://api.slack.com/reference/block-kit/blocks */
function checkSlack(body: Doc): string {
  expect(typeof body.text).toBe('string')
  expect(Array.isArray(body.blocks)).toBe(true)
  expect(body.blocks.length).toBeLessThanOrEqual(50)
  for (const block of body.blocks) {
    expect(['header', 'section', 'context', 'actions']).toContain(block.type)
    if (block.type === 'header') {
      expect(block.text.type).toBe('plain_text')
      expect(len(block.text.text)).toBeLessThanOrEqual(150)
    }
    if (block.type === 'section') {
      if (block.text) expect(len(block.text.text)).toBeLessThanOrEqual(3000)
      if (block.fields) {
        expect(block.fields.length).toBeLessThanOrEqual(10)
        for (const f of block.fields) expect(len(f.text)).toBeLessThanOrEqual(2000)
      }
    }
    if (block.type === 'actions') for (const e of block.elements) expect(e).toMatchObject({ type: 'button', text: { type: 'plain_text' }, url: expect.stringMatching(/^https?:\/\//) })
  }
  // mrkdwn: no raw <, > or & from event data (only Slack's own <!date^…|…> in the context).
  const mrkdwn = [body.text, ...body.blocks.flatMap((b: Doc) => [b.type === 'section' ? b.text?.text : undefined, ...(b.fields ?? []).map((f: Doc) => f.text)])].filter(Boolean)
  // (A quote's leading "> " is the message's own markup.)
  for (const text of mrkdwn) expect(text.replace(/(^|\n)> /g, '$1')).not.toMatch(/<|>|&(?!amp;|lt;|gt;)/)
  return JSON.stringify(body.blocks)
}

/** https://discord.com/developers/docs/resources/message#embed-object-embed-limits */
function checkDiscord(body: Doc): string {
  expect(body.allowed_mentions).toEqual({ parse: [] })
  expect(body.embeds).toHaveLength(1)
  const embed = body.embeds[0]
  expect(typeof embed.title).toBe('string')
  expect(len(embed.title)).toBeLessThanOrEqual(256)
  expect(len(embed.description)).toBeLessThanOrEqual(4096)
  expect(embed.url).toMatch(/^https?:\/\//)
  expect(Number.isInteger(embed.color)).toBe(true)
  expect(Number.isNaN(Date.parse(embed.timestamp))).toBe(false)
  expect(embed.fields.length).toBeLessThanOrEqual(25)
  let total = len(embed.title) + len(embed.description) + len(embed.footer?.text ?? '')
  for (const f of embed.fields) {
    expect(typeof f.inline).toBe('boolean')
    expect(len(f.name)).toBeLessThanOrEqual(256)
    expect(len(f.value)).toBeLessThanOrEqual(1024)
    expect(len(f.value)).toBeGreaterThan(0)
    total += len(f.name) + len(f.value)
  }
  expect(total).toBeLessThanOrEqual(6000)
  return `${embed.title}\n${embed.description}\n${JSON.stringify(embed.fields)}`
}

/** https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using (Adaptive Card 1.4) */
function checkTeams(body: Doc): string {
  expect(body.type).toBe('message')
  expect(body.attachments).toHaveLength(1)
  const attachment = body.attachments[0]
  expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive')
  const card = attachment.content
  expect(card).toMatchObject({ $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4' })
  for (const element of card.body) {
    expect(['TextBlock', 'RichTextBlock', 'FactSet']).toContain(element.type)
    if (element.type === 'TextBlock') expect(typeof element.text).toBe('string')
    if (element.type === 'RichTextBlock') for (const inline of element.inlines) expect(inline).toMatchObject({ type: 'TextRun', text: expect.any(String) })
    if (element.type === 'FactSet') for (const fact of element.facts) expect(fact).toEqual({ title: expect.any(String), value: expect.any(String) })
  }
  expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: expect.any(String), url: expect.stringMatching(/^https?:\/\//) }])
  return card.body.map((e: Doc) => e.text ?? e.inlines?.map((i: Doc) => i.text).join('') ?? JSON.stringify(e.facts)).join('\n')
}

/** https://developers.mattermost.com/integrate/reference/message-attachments/ */
function checkMattermost(body: Doc): string {
  expect(typeof body.text).toBe('string')
  expect(body.attachments).toHaveLength(1)
  const a = body.attachments[0]
  expect(typeof a.fallback).toBe('string')
  expect(a.color).toMatch(/^#[0-9a-f]{6}$/)
  expect(typeof a.title).toBe('string')
  expect(a.title_link).toMatch(/^https?:\/\//)
  for (const f of a.fields) expect(f).toEqual({ title: expect.any(String), value: expect.any(String), short: expect.any(Boolean) })
  for (const text of strings(body).filter((s) => s !== a.title_link && s !== a.color)) {
    expect(text.replace(/(^|\n)> /g, '$1')).not.toMatch(/<|>/)
    expect(text).not.toMatch(/@(channel|all|here|everyone)/)
  }
  return `${body.text}\n${a.title}\n${a.text}\n${JSON.stringify(a.fields)}`
}

const CHECKS: Record<(typeof CHAT_FORMATS)[number], (body: Doc) => string> = { slack: checkSlack, discord: checkDiscord, teams: checkTeams, mattermost: checkMattermost }

let ctx: TestContext
let seeded: SeededProject
const receivers = {} as Record<(typeof CHAT_FORMATS)[number], WebhookReceiver>
const hooks = {} as Record<(typeof CHAT_FORMATS)[number], Webhook>

const hooksPath = () => `/api/projects/${seeded.project.id}/webhooks`
const notify = async (events: Record<string, unknown>[]) => {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': seeded.project.api_key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ payloadVersion: '5', events }),
  })
  expect(res.status).toBe(200)
}
/** Runs the queued deliveries; each format's requests since `from`. */
async function deliver(from: Record<string, number>): Promise<Record<(typeof CHAT_FORMATS)[number], ReceivedRequest[]>> {
  await ctx.jobs.drain()
  return Object.fromEntries(CHAT_FORMATS.map((f) => [f, receivers[f].received.slice(from[f])])) as never
}
const marks = () => Object.fromEntries(CHAT_FORMATS.map((f) => [f, receivers[f].received.length]))

beforeAll(async () => {
  for (const f of CHAT_FORMATS) receivers[f] = await startWebhookReceiver()
  ctx = await createTestContext({ webhookAllow: parseAllowList('127.0.0.1'), publicUrl: 'https://errata.example.com' }, { webhooks: { retryDelayMs: () => 0 } })
  seeded = await seedProject(ctx, { user: 'Chat Admin', organization: 'Chat Org', project: 'Shop' })
})
afterAll(async () => {
  await ctx?.close()
  for (const r of Object.values(receivers)) await r?.close()
})

describe('webhook format', () => {
  it('is errata by default, taken on create and PATCH, and refused naming the field', async () => {
    const post = (json: unknown) => ctx.request(hooksPath(), { method: 'POST', token: seeded.user.token, json })
    const plain = (await (await post({ url: receivers.slack.url, triggers: ['release'] })).json()) as Webhook
    expect(plain.format).toBe('errata')
    const bad = await post({ url: receivers.slack.url, triggers: ['release'], format: 'irc' })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { errors: string[] }).errors.join('; ')).toMatch(/^format: must be one of errata, slack, discord, teams, mattermost/)
    const patched = await ctx.request(`/api/webhooks/${plain.id}`, { method: 'PATCH', token: seeded.user.token, json: { format: 'teams' } })
    expect(((await patched.json()) as Webhook).format).toBe('teams')
    const badPatch = await ctx.request(`/api/webhooks/${plain.id}`, { method: 'PATCH', token: seeded.user.token, json: { format: 42 } })
    expect(badPatch.status).toBe(400)
    expect(((await badPatch.json()) as { errors: string[] }).errors.join('; ')).toMatch(/^format:/)
    expect(((await (await ctx.request(`/api/webhooks/${plain.id}`, { token: seeded.user.token })).json()) as Webhook).format).toBe('teams')
    await ctx.request(`/api/webhooks/${plain.id}`, { method: 'DELETE', token: seeded.user.token })

    for (const format of CHAT_FORMATS) {
      const res = await post({ url: receivers[format].url, format, triggers: ['firstException', 'comment', 'errorStateManualChange', 'release'] })
      expect(res.status).toBe(201)
      hooks[format] = (await res.json()) as Webhook
      expect(hooks[format].format).toBe(format)
    }
  })
})

describe('chat messages', () => {
  let errorId: string

  it('a new error with a hostile message arrives as each service documents, the message kept as text', async () => {
    const from = marks()
    await notify([notifierEvent('<b>Boom</b>', { app: { releaseStage: 'production', version: '1.2.0' }, exceptions: [{ errorClass: '<b>Boom</b>', message: HOSTILE, stacktrace: [] }] })])
    const got = await deliver(from)
    for (const format of CHAT_FORMATS) {
      // The event's version is a new release too: that message is another.
      expect(got[format].map((r) => r.headers['x-errata-trigger']).sort(), format).toEqual(['firstException', 'release'])
      const request = got[format].find((r) => r.headers['x-errata-trigger'] === 'firstException')!
      expect(request.headers['content-type']).toBe('application/json')
      const text = CHECKS[format](request.json)
      expect(text, format).toMatch(/New error in Shop/)
      expect(text, format).toMatch(/production/)
      expect(text, format).toMatch(/alert\(1\)|alert\\\(1\\\)/)
      // The link to the error, on the public address.
      expect(JSON.stringify(request.json), format).toMatch(/https:\/\/errata\.example\.com\/projects\/[^"]+\/errors\/[^"/]+/)
      // No raw markup from the event where the service reads markup (Teams' TextRuns read none).
      if (format === 'slack' || format === 'mattermost') {
        expect(request.body, format).not.toContain('<!channel>')
        expect(request.body, format).not.toContain('<script>')
      }
    }
    const card = (got.teams.find((r) => r.headers['x-errata-trigger'] === 'firstException')!.json as Doc).attachments[0].content
    expect(card.body).toContainEqual({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: HOSTILE }] })
    // Slack and Mattermost keep it readable as their escapes.
    expect(got.slack.map((r) => r.body).join('')).toContain('&lt;!channel&gt;')
    const discordEmbed = (got.discord.find((r) => r.headers['x-errata-trigger'] === 'firstException')!.json as Doc).embeds[0]
    expect(discordEmbed.fields).toContainEqual({ name: 'Events', value: '1', inline: true })
    errorId = /\/errors\/([^/]+)/.exec(discordEmbed.url)![1]!
  })

  it('a comment, a status change and a release say what happened in words', async () => {
    let from = marks()
    const comment = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}/comments`, {
      method: 'POST',
      token: seeded.user.token,
      json: { message: 'Looking into it @here' },
    })
    expect(comment.status).toBe(201)
    let got = await deliver(from)
    for (const format of CHAT_FORMATS) {
      expect(got[format], format).toHaveLength(1)
      const text = CHECKS[format](got[format][0]!.json)
      expect(text, format).toMatch(/Chat Admin commented on an error in Shop/)
      expect(text, format).toMatch(/Looking into it/)
    }

    from = marks()
    const fixed = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: seeded.user.token, json: { operation: 'fix' } })
    expect(fixed.status).toBe(200)
    got = await deliver(from)
    for (const format of CHAT_FORMATS) {
      expect(got[format], format).toHaveLength(1)
      expect(CHECKS[format](got[format][0]!.json), format).toMatch(/Chat Admin marked an error as fixed in Shop/)
    }

    from = marks()
    const build = await ctx.request('/build', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiKey: seeded.project.api_key, appVersion: '2.0.0', releaseStage: 'production', builderName: 'ci' }),
    })
    expect(build.status).toBeLessThan(300)
    got = await deliver(from)
    for (const format of CHAT_FORMATS) {
      expect(got[format], format).toHaveLength(1)
      const text = CHECKS[format](got[format][0]!.json)
      expect(text, format).toMatch(/New release of Shop/)
      expect(text, format).toMatch(/2\.0\.0/)
    }
  })

  it('"Send test" sends a test message in the format, and the delivery log shows it', async () => {
    const from = marks()
    const queued: Record<string, WebhookDelivery> = {}
    for (const format of CHAT_FORMATS) {
      const res = await ctx.request(`/api/webhooks/${hooks[format].id}/test`, { method: 'POST', token: seeded.user.token })
      expect(res.status).toBe(201)
      queued[format] = (await res.json()) as WebhookDelivery
    }
    const got = await deliver(from)
    for (const format of CHAT_FORMATS) {
      expect(got[format], format).toHaveLength(1)
      expect(CHECKS[format](got[format][0]!.json), format).toMatch(/Test notification for Shop/)
      expect(got[format][0]!.headers['x-errata-delivery']).toBe(queued[format]!.id)
      const log = (await (await ctx.request(`/api/webhooks/${hooks[format].id}/deliveries`, { token: seeded.user.token })).json()) as WebhookDelivery[]
      const test = log.find((d) => d.id === queued[format]!.id)!
      expect(test).toMatchObject({ test: true, state: 'delivered', attempts: 1 })
      // The log shows the body as sent.
      expect(test.payload).toEqual(got[format][0]!.json)
    }
  })
})

describe('every trigger, within each service limits', () => {
  const huge = 'x'.repeat(10_000)
  const document = (type: string, extra: Doc = {}): Doc => ({
    account: { id: 'a', name: 'Acme', url: 'https://errata.example.com/organizations/a' },
    project: { id: 'p', name: 'Shop', url: 'https://errata.example.com/projects/p/errors' },
    trigger: { type, message: `Something about ${type}`, ...(type === 'projectSpiking' && { rate: 500 }), ...(type === 'errorStateManualChange' && { stateChange: 'ignored' }) },
    user: { id: 'u', name: 'Ann', email: 'ann@example.com' },
    ...extra,
  })
  const error = {
    errorId: 'e',
    exceptionClass: huge,
    message: `${HOSTILE} ${huge}`,
    context: huge,
    url: 'https://errata.example.com/projects/p/errors/e',
    receivedAt: '2031-01-01T00:00:00.000Z',
    severity: 'error',
    status: 'open',
    unhandled: true,
    app: { releaseStage: huge, version: huge },
  }
  const errorTriggers = ['firstException', 'exception', 'powerTen', 'errorEventFrequency', 'reopened', 'comment', 'errorStateManualChange']

  it.each(CHAT_FORMATS)('%s: a sensible, valid message for every trigger and for a test', (format: WebhookFormat) => {
    for (const trigger of WEBHOOK_TRIGGERS) {
      const doc = document(trigger, {
        ...(errorTriggers.includes(trigger) && { error }),
        ...(trigger === 'comment' && { comment: { id: 'c', message: huge, createdAt: '2031-01-01T00:00:00.000Z' } }),
        ...(trigger === 'release' && { release: { id: 'r', version: '3.1.0', releaseStage: 'production', url: 'https://errata.example.com/projects/p/errors?v', releaseTime: '2031-01-01T00:00:00.000Z' } }),
      })
      const body = formatBody(format, doc, { test: false, counts: { events: 1234, users: 5 }, now: new Date('2031-01-01T00:00:00Z') })
      const text = CHECKS[format as (typeof CHAT_FORMATS)[number]](body)
      expect(text, trigger).toContain(`Something about ${trigger}`)
      expect(text, trigger).toMatch(/Shop/)
      expect(strings(body).every((s) => !/undefined|\[object Object\]|NaN/.test(s)), trigger).toBe(true)
    }
    const test = formatBody(format, document('exception', { trigger: { type: 'exception', message: 'This is a test notification from Errata.' } }), { test: true, counts: null, now: new Date() })
    expect(CHECKS[format as (typeof CHAT_FORMATS)[number]](test)).toMatch(/Test notification for Shop/)
  })

  it('errata sends the document itself', () => {
    const doc = document('release')
    expect(formatBody('errata', doc, { test: false, counts: null, now: new Date() })).toBe(doc)
  })
})
