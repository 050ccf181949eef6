import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { eventSchema, type EventException, type StackFrame } from '../../../contract/events.ts'
import { decodeEventPayload, encodeEventPayload } from '../../events/event-payload.ts'
import { computeGrouping, normalizeFileForGrouping } from './grouping.ts'
import { normalizeEvent, prepareEvents } from './normalize.ts'
import { parseNotifierTime } from '../payload/notifier-time.ts'
import { notifyPayloadSchema, sessionsPayloadSchema } from '../payload/payload-schema.ts'
import { parseUserAgent } from './user-agent.ts'

const WIRE = join(import.meta.dirname, '../../../test/fixtures/wire')
const NATIVE = join(import.meta.dirname, '../../../test/fixtures/native')

interface Capture {
  method: string
  headers: Record<string, string>
  json: unknown
}
interface RawFrame { file: string; method?: string; lineNumber: number | string; columnNumber: number | string; inProject?: boolean; code?: Record<string, string> }
interface RawEvent {
  exceptions: Array<{ errorClass: string; errorMessage: string; stacktrace: RawFrame[] }>
  severity: string
  unhandled: boolean
  severityReason: { type: string }
  metaData: Record<string, unknown>
  user?: { id?: string; email?: string; name?: string }
  app: { version?: string; releaseStage: string }
  context?: string
  breadcrumbs?: Array<{ name: string; type: string; timestamp: string; metaData: Record<string, unknown> }>
  featureFlags?: Array<{ featureFlag: string; variant?: string }>
  session?: Record<string, unknown>
}
/** What the events row adds to a stored payload to make an Events API resource. */
const ids = { id: 'e', url: 'u', html_url: 'h', project_id: 'p', error_id: 'r', received_at: new Date().toISOString() }
const capture = (name: string): Capture => JSON.parse(readFileSync(join(WIRE, name), 'utf8')) as Capture
const notifyFixtures = readdirSync(WIRE).filter((f) => /-notify-.*\.request\.json$/.test(f))

function normalizeFixture(name: string) {
  const c = capture(name)
  const payload = notifyPayloadSchema.parse(c.json)
  return { payload, normalized: normalizeEvent(payload.events[0]!, payload.notifier ?? null, c.headers['user-agent'] ?? null) }
}

describe('payload normalization on every captured notifier request', () => {
  it('has node and browser captures to check', () => {
    expect(notifyFixtures.filter((f) => f.startsWith('node-')).length).toBeGreaterThanOrEqual(4)
    expect(notifyFixtures.filter((f) => f.startsWith('browser-')).length).toBeGreaterThanOrEqual(3)
  })

  it.each(notifyFixtures)('%s validates and normalizes into the Events API shape', (name) => {
    const raw = capture(name).json as { events: RawEvent[] }
    const source = raw.events[0]!
    const { normalized } = normalizeFixture(name)
    const p = normalized.payload

    // The stored payload plus the row identity is a valid Events API resource.
    const resource = { ...ids, ...p }
    expect(eventSchema.safeParse(resource).success).toBe(true)

    expect(p.exceptions).toHaveLength(source.exceptions.length)
    source.exceptions.forEach((exception, i) => {
      const out = p.exceptions[i]!
      expect(out.class).toBe(exception.errorClass)
      expect(out.message).toBe(exception.errorMessage)
      expect(out.stacktrace).toHaveLength(exception.stacktrace.length)
      exception.stacktrace.forEach((frame, j) => {
        const f = out.stacktrace[j]!
        expect(f.line).toBe(Number(frame.lineNumber))
        expect(f.column).toBe(Number(frame.columnNumber))
        expect(f.file).toBe(frame.file)
        expect(f.method).toBe(frame.method ?? null)
        expect(f.in_project).toBe(frame.inProject === true)
        expect(f.code).toEqual(frame.code ?? null)
      })
    })
    expect(p.severity).toBe(source.severity)
    expect(p.unhandled).toBe(source.unhandled)
    expect(p.severity_reason).toBe(source.severityReason.type)
    expect(p.meta_data).toEqual(source.metaData)
    expect(p.user).toEqual({ id: source.user?.id ?? null, email: source.user?.email ?? null, name: source.user?.name ?? null })
    expect(p.user_id).toBe(source.user?.id ?? null)
    expect(p.app_version).toBe(source.app.version ?? null)
    expect(p.release_stage).toBe(source.app.releaseStage)
    expect(p.context).toBe(source.context ?? null)
    expect(p.breadcrumbs).toEqual(
      (source.breadcrumbs ?? []).map((b) => ({ name: b.name, type: b.type, timestamp: b.timestamp, meta_data: b.metaData })),
    )
    expect(p.feature_flags).toEqual(
      (source.featureFlags ?? []).map((f) => ({ name: f.featureFlag, variant: f.variant ?? null })),
    )
    expect(p.session).toEqual(source.session ?? null)
    expect(p.notifier).toMatchObject({ version: '9.0.0' })

    expect(normalized.columns).toMatchObject({
      errorClass: source.exceptions[0]!.errorClass,
      message: source.exceptions[0]!.errorMessage,
      severity: source.severity,
      releaseStage: source.app.releaseStage,
      userId: source.user?.id ?? null,
      userEmail: source.user?.email ?? null,
    })
    expect(normalized.grouping.hash).toMatch(/^[0-9a-f]{40}$/)
  })

  it('reads node specifics: OS version, cause chain order and in-project frames', () => {
    const chain = normalizeFixture('node-notify-cause-chain.request.json').normalized
    expect(chain.payload.exceptions.map((e) => e.class)).toEqual(['Error', 'RangeError', 'TypeError'])
    expect(chain.payload.os_version).toBe('6.18.44-fc-v669')
    expect(chain.columns).toMatchObject({ osName: 'linux (x64)', osVersion: '6.18.44-fc-v669', appVersion: '1.2.3', browserName: null })
    expect(chain.payload.feature_flags).toEqual([
      { name: 'checkout-v2', variant: 'treatment' },
      { name: 'dark-mode', variant: null },
      { name: 'new-pricing', variant: 'v3' },
    ])
    expect(chain.userKey).toBe('user-42')

    const cjs = normalizeFixture('node-notify-cjs-inproject.request.json').normalized
    expect(cjs.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'cjs-probe.cjs', method: 'boom', line: 3, column: 26, in_project: true })
    expect(cjs.grouping.reason).toBe('in_project_frame')
    expect(cjs.payload.release_stage).toBe('production')

    const uncaught = normalizeFixture('node-notify-uncaught-exception.request.json').normalized
    expect(uncaught.columns).toMatchObject({ severity: 'error', unhandled: true })
    expect(uncaught.payload.severity_reason).toBe('unhandledException')
  })

  it('reads browser specifics: browser and OS from the user agent, request URL, device id as user key fallback', () => {
    const handled = normalizeFixture('browser-notify-handled.request.json').normalized
    expect(handled.columns).toMatchObject({
      browserName: 'jsdom',
      osName: 'Linux',
      requestUrl: 'http://localhost:8080/checkout?step=2',
      context: 'checkout/submit',
    })
    expect(handled.payload.device).toMatchObject({ browserName: 'jsdom', browserVersion: '29.1.1', id: 'cmwrq8zzu00001z5tjug7yh5p' })
    expect(handled.payload.request).toEqual({ url: 'http://localhost:8080/checkout?step=2' })
    expect(handled.payload.meta_data).toMatchObject({ order: { id: 'ord_123', total: 42.5 } })

    const raw = capture('browser-notify-handled.request.json').json as { events: Array<Record<string, unknown>> }
    delete raw.events[0]!.user
    const anonymous = normalizeEvent(notifyPayloadSchema.parse(raw).events[0]!, null)
    expect(anonymous.userKey).toBe('cmwrq8zzu00001z5tjug7yh5p')
  })

  it('assigns time-ordered ids, and the stored payload round-trips', async () => {
    const payload = notifyPayloadSchema.parse(capture('node-notify-handled.request.json').json)
    const receivedAt = new Date()
    const [prepared] = prepareEvents('project-1', receivedAt, payload, null)
    expect(prepared!.id).toMatch(/^[0-9a-f]{24}$/)
    expect(prepared!.receivedAt).toBe(receivedAt)
    const stored = decodeEventPayload(encodeEventPayload(prepared!.payload))
    expect(stored).toEqual(prepared!.payload)
    expect(stored.exceptions[0]!.class).toBe(payload.events[0]!.exceptions[0]!.errorClass)
  })
})

describe('lenient payload validation', () => {
  const minimal = () => ({ events: [{ exceptions: [{ errorClass: 'Boom', stacktrace: [] }] }] })

  it('accepts unknown keys, numeric strings for line numbers and numeric user ids', () => {
    const body = {
      apiKey: 'k',
      somethingNew: { x: 1 },
      events: [
        {
          exceptions: [{ errorClass: 'E', errorMessage: 'm', stacktrace: [{ file: 'a.js', lineNumber: '12', columnNumber: 'x', extra: 1 }] }],
          user: { id: 42 },
          app: { version: 3 },
          newField: true,
        },
      ],
    }
    const event = normalizeEvent(notifyPayloadSchema.parse(body).events[0]!, null)
    expect(event.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ line: 12, column: null, method: null, in_project: false, code: null })
    expect(event.payload.user_id).toBe('42')
    expect(event.payload.app_version).toBe('3')
    expect(event.payload.severity).toBe('warning')
    expect(event.payload.release_stage).toBe('production')
  })

  it('defaults severity to error for unhandled events and strips NUL characters from columns', () => {
    const body = minimal()
    Object.assign(body.events[0]!, { unhandled: true })
    body.events[0]!.exceptions[0]!.errorClass = 'Bad\u0000Class'
    const event = normalizeEvent(notifyPayloadSchema.parse(body).events[0]!, null)
    expect(event.payload.severity).toBe('error')
    expect(event.columns.errorClass).toBe('BadClass')
  })

  it('names the failing field path', () => {
    const noExceptions = notifyPayloadSchema.safeParse({ events: [{ exceptions: [] }] })
    expect(noExceptions.success).toBe(false)
    expect(noExceptions.error!.issues[0]!.path).toEqual(['events', 0, 'exceptions'])
    const noClass = notifyPayloadSchema.safeParse({ events: [{ exceptions: [{ errorMessage: 'x' }] }] })
    expect(noClass.error!.issues[0]!.path).toEqual(['events', 0, 'exceptions', 0, 'errorClass'])
    // An unknown severity is read as error, not refused (adversarial.test.ts covers the rest).
    const fatal = notifyPayloadSchema.parse({ events: [{ exceptions: [{ errorClass: 'E' }], severity: 'fatal' }] })
    expect(normalizeEvent(fatal.events[0]!, null).payload.severity).toBe('error')
    expect(notifyPayloadSchema.safeParse({}).error!.issues[0]!.path).toEqual(['events'])
  })

  it('accepts both session shapes', () => {
    expect(sessionsPayloadSchema.safeParse(capture('node-sessions.request.json').json).success).toBe(true)
    expect(sessionsPayloadSchema.safeParse(capture('browser-sessions.request.json').json).success).toBe(true)
    expect(sessionsPayloadSchema.safeParse({ app: {} }).success).toBe(false)
  })

  it('reads bugsnag-go 1.x sessions, whose sessionCounts is one object', () => {
    const go = sessionsPayloadSchema.parse({
      notifier: { name: 'Bugsnag Go', version: '1.9.1' },
      app: { releaseStage: 'production' },
      sessionCounts: { startedAt: '2026-11-23T01:00:00Z', sessionsStarted: 2 },
    })
    expect(go.sessionCounts).toEqual([{ startedAt: '2026-11-23T01:00:00Z', sessionsStarted: 2 }])
  })

  it('reads bugsnag-python events: the release stage at the event level', () => {
    const python = notifyPayloadSchema.parse({
      events: [{ releaseStage: 'staging', app: { version: '2.3.4', type: 'django' }, exceptions: [{ errorClass: 'KeyError', stacktrace: [] }] }],
    })
    const event = normalizeEvent(python.events[0]!, null)
    expect(event.columns.releaseStage).toBe('staging')
    expect(event.payload.app).toEqual({ version: '2.3.4', type: 'django', releaseStage: 'staging' })
    // The app section wins when both say something.
    const both = notifyPayloadSchema.parse({
      events: [{ releaseStage: 'staging', app: { releaseStage: 'beta' }, exceptions: [{ errorClass: 'E' }] }],
    })
    expect(normalizeEvent(both.events[0]!, null).columns.releaseStage).toBe('beta')
  })

  it('reads the event-level user id, app and OS version of older payloads', () => {
    const legacy = notifyPayloadSchema.parse({
      events: [{ userId: 'u-7', appVersion: '1.0.2', osVersion: '10.2', releaseStage: 'development', exceptions: [{ errorClass: 'E' }] }],
    })
    const event = normalizeEvent(legacy.events[0]!, null)
    expect(event.columns).toMatchObject({ userId: 'u-7', appVersion: '1.0.2', osVersion: '10.2', releaseStage: 'development' })
    expect(event.userKey).toBe('u-7')
  })

  it('keeps the details of the severity reason (framework, signal) as text', () => {
    const ruby = notifyPayloadSchema.parse({
      events: [
        {
          exceptions: [{ errorClass: 'NoMethodError' }],
          severityReason: { type: 'unhandledExceptionMiddleware', attributes: { framework: 'Rails', depth: 2, nested: { x: 1 } } },
        },
      ],
    })
    expect(normalizeEvent(ruby.events[0]!, null).payload).toMatchObject({
      severity_reason: 'unhandledExceptionMiddleware',
      severity_reason_attributes: { framework: 'Rails', depth: '2' },
    })
    const plain = notifyPayloadSchema.parse({ events: [{ exceptions: [{ errorClass: 'E' }], severityReason: { type: 'handledException' } }] })
    expect(normalizeEvent(plain.events[0]!, null).payload).not.toHaveProperty('severity_reason_attributes')
  })

  it('reads empty PHP arrays as empty sections, not as invalid fields', () => {
    const php = notifyPayloadSchema.parse({
      events: [{ user: [], metaData: [], app: [], device: [], request: [], exceptions: [{ errorClass: 'InvalidArgumentException' }] }],
    })
    const event = normalizeEvent(php.events[0]!, null)
    expect(event.payload.meta_data).toEqual({})
    expect(event.payload.user).toEqual({ id: null, email: null, name: null })
    // A non-empty array where an object belongs is still kept aside.
    const odd = notifyPayloadSchema.parse({ events: [{ user: ['x'], exceptions: [{ errorClass: 'E' }] }] })
    expect(normalizeEvent(odd.events[0]!, null).payload.meta_data).toEqual({ invalid_fields: { user: ['x'] } })
  })

  it('fills the request from a "request" metadata tab (Ruby, Python, Java), keeping the tab', () => {
    const tab = {
      url: 'https://shop.example.com/cart?id=1',
      httpMethod: 'POST',
      clientIp: '203.0.113.9',
      referer: 'https://shop.example.com/',
      headers: { 'User-Agent': 'curl/8' },
      params: { id: '1' },
    }
    const ruby = notifyPayloadSchema.parse({ events: [{ metaData: { request: tab }, exceptions: [{ errorClass: 'NoMethodError' }] }] })
    const event = normalizeEvent(ruby.events[0]!, null)
    expect(event.columns.requestUrl).toBe('https://shop.example.com/cart?id=1')
    expect(event.payload.request).toEqual({
      url: tab.url,
      httpMethod: 'POST',
      clientIp: '203.0.113.9',
      referer: 'https://shop.example.com/',
      headers: { 'User-Agent': 'curl/8' },
    })
    expect(event.payload.meta_data.request).toEqual(tab)
    // bugsnag-java calls it `method`.
    const java = notifyPayloadSchema.parse({
      events: [{ metaData: { request: { url: 'https://api.example.com/x', method: 'PUT' } }, exceptions: [{ errorClass: 'java.lang.IllegalStateException' }] }],
    })
    expect(normalizeEvent(java.events[0]!, null).payload.request).toEqual({ url: 'https://api.example.com/x', httpMethod: 'PUT' })
    // A request section sent by the notifier wins.
    const both = notifyPayloadSchema.parse({
      events: [{ request: { url: 'https://a.example/' }, metaData: { request: tab }, exceptions: [{ errorClass: 'E' }] }],
    })
    expect(normalizeEvent(both.events[0]!, null).payload.request).toEqual({ url: 'https://a.example/' })
  })

  it('keeps an exception whose class has no name (null errorClass) with an empty class', () => {
    const anonymous = notifyPayloadSchema.parse({
      events: [{ exceptions: [{ errorClass: 'RuntimeError', errorMessage: 'outer' }, { errorClass: null, errorMessage: 'inner' }] }],
    })
    const event = normalizeEvent(anonymous.events[0]!, null)
    expect(event.payload.exceptions.map((e) => e.class)).toEqual(['RuntimeError', ''])
    // Absent is still refused: there is no exception without a class field at all.
    expect(notifyPayloadSchema.safeParse({ events: [{ exceptions: [{ errorMessage: 'x' }] }] }).success).toBe(false)
  })

  it('reads times without a zone as UTC, whatever the server\'s time zone', () => {
    const zone = process.env.TZ
    // Node applies a changed TZ at once; a server east or west of UTC must read the same instant.
    process.env.TZ = 'America/New_York'
    try {
      const crumb = notifyPayloadSchema.parse({
        events: [{ exceptions: [{ errorClass: 'E' }], breadcrumbs: [{ name: 'tick', type: 'log', timestamp: '2026-11-23T01:00:00' }] }],
      })
      expect(normalizeEvent(crumb.events[0]!, null).payload.breadcrumbs[0]!.timestamp).toBe('2026-11-23T01:00:00.000Z')
      expect(parseNotifierTime('2026-11-23T01:00:00.123')).toBe(Date.UTC(2026, 10, 23, 1, 0, 0, 123))
      expect(parseNotifierTime('2026-11-23 01:00:00.123456')).toBe(Date.UTC(2026, 10, 23, 1, 0, 0, 123))
      expect(parseNotifierTime('2026-11-23t01:00')).toBe(Date.UTC(2026, 10, 23, 1, 0))
      expect(parseNotifierTime('2026-11-23T01:00:00+02:00')).toBe(Date.UTC(2026, 10, 22, 23, 0, 0))
      // Digits are epoch milliseconds, as a JSON number is; a bare year stays a year.
      expect(parseNotifierTime('1700000000000')).toBe(1_700_000_000_000)
      expect(parseNotifierTime('2026')).toBe(Date.UTC(2026, 0, 1))
      expect(parseNotifierTime('0')).toBeNaN()
      expect(parseNotifierTime('12345')).toBeNaN()
      // Not in the calendar: unreadable, not rolled over into the next month.
      expect(parseNotifierTime('2026-02-30')).toBeNaN()
      expect(parseNotifierTime('2026-02-30T10:00:00Z')).toBeNaN()
      expect(parseNotifierTime('2024-02-29T10:00:00Z')).toBe(Date.UTC(2024, 1, 29, 10))
      expect(parseNotifierTime('2026-13-01')).toBeNaN()
      // Zones in their short forms, a comma fraction, and an HTTP date.
      expect(parseNotifierTime('2026-11-23T01:00:00+0100')).toBe(Date.UTC(2026, 10, 23, 0))
      expect(parseNotifierTime('2026-11-23T01:00:00-01')).toBe(Date.UTC(2026, 10, 23, 2))
      expect(parseNotifierTime('2026-11-23T01:00:00,5Z')).toBe(Date.UTC(2026, 10, 23, 1, 0, 0, 500))
      expect(parseNotifierTime('Mon, 23 Nov 2026 01:00:00 GMT')).toBe(Date.UTC(2026, 10, 23, 1))
      // Text that merely contains numbers is not a time (Date.parse reads these as 2001).
      for (const text of ['session 12', '1.5', 'March 7', 'abc 7', '-1', '2026-11-23T01:00:00 nonsense']) {
        expect(parseNotifierTime(text)).toBeNaN()
      }
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })
})

describe('native frames', () => {
  // The frames of a real bugsnag-android NDK crash: addresses as JSON numbers, the module in `file`.
  const ndk = JSON.parse(readFileSync(join(NATIVE, 'android-ndk-event.json'), 'utf8')) as {
    exceptions: Array<{ errorClass: string; stacktrace: Array<Record<string, unknown>> }>
    expected: Array<{ relativeAddress: string; function: string }>
  }
  const normalizeExceptions = (exceptions: unknown[]) =>
    normalizeEvent(notifyPayloadSchema.parse({ events: [{ exceptions }] }).events[0]!, null)

  it('keeps an Android NDK frame\'s addresses, build id and module, with the address inside the module', () => {
    const event = normalizeExceptions(ndk.exceptions)
    const [top, second] = event.payload.exceptions[0]!.stacktrace
    expect(top!.native).toEqual({
      type: 'c',
      module: '/data/app/com.example/lib/arm64/libcrash.aarch64.so',
      frame_address: `0x${(516530042520).toString(16)}`,
      load_address: `0x${(516530036736).toString(16)}`,
      symbol_address: `0x${(516530042480).toString(16)}`,
      relative_address: ndk.expected[0]!.relativeAddress,
      is_pc: true,
      is_lr: false,
      code_identifier: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a',
      macho_uuid: null,
      macho_vm_address: null,
    })
    expect(second!.native).toMatchObject({ relative_address: ndk.expected[1]!.relativeAddress, is_pc: false })
    expect(top!.method).toBe('crash_here')
    expect(eventSchema.safeParse({ ...event.payload, ...ids }).success).toBe(true)
  })

  it('reads Cocoa\'s hex strings without losing 64-bit precision, and the Mach-O image as the module', () => {
    const event = normalizeExceptions([
      {
        errorClass: 'EXC_BAD_ACCESS',
        type: 'cocoa',
        stacktrace: [
          {
            method: '-[CheckoutViewController pay:]',
            machoFile: '/private/var/containers/Bundle/Application/6F4E/Shop.app/Shop',
            frameAddress: '0x0000000102F4A2BC',
            machoLoadAddress: '0x102F40000',
            symbolAddress: '0x102F4A280',
            machoVMAddress: '0x100000000',
            machoUUID: 'D0A41830-4FD2-3B02-A23B-0741AD4C7F52',
            isLR: true,
            type: 'cocoa',
          },
          { method: 'objc_msgSend', frameAddress: '0xFFFFFFF00000ABCD', machoLoadAddress: '0xFFFFFFF000000000', type: 'cocoa' },
        ],
      },
    ])
    const [app, system] = event.payload.exceptions[0]!.stacktrace
    expect(app!.native).toMatchObject({
      module: '/private/var/containers/Bundle/Application/6F4E/Shop.app/Shop',
      frame_address: '0x102f4a2bc',
      load_address: '0x102f40000',
      symbol_address: '0x102f4a280',
      relative_address: '0xa2bc',
      macho_vm_address: '0x100000000',
      macho_uuid: 'D0A41830-4FD2-3B02-A23B-0741AD4C7F52',
      is_lr: true,
      is_pc: false,
    })
    // Above 2^53, where a JSON number would already have lost the low bits.
    expect(system!.native).toMatchObject({ frame_address: '0xfffffff00000abcd', relative_address: '0xabcd' })
  })

  it('counts frames of a Cocoa app\'s own executable as in project, unless the notifier said otherwise', () => {
    // As bugsnag-cocoa sends them from a KSCrash report: no inProject, and no per-frame type.
    const cocoa = (machoFile: string, extra: Record<string, unknown> = {}) => ({ method: 'm', machoFile, frameAddress: '0x1000', machoLoadAddress: '0x1000', ...extra })
    const event = normalizeExceptions([
      {
        errorClass: 'EXC_BAD_ACCESS',
        stacktrace: [
          cocoa('/usr/lib/libobjc.A.dylib'),
          cocoa('/private/var/containers/Bundle/Application/6F4E/Shop.app/Frameworks/Alamofire.framework/Alamofire'),
          cocoa('/private/var/containers/Bundle/Application/6F4E/Shop.app/Shop'),
          cocoa('/Applications/Shop.app/Contents/MacOS/Shop'),
          cocoa('/private/var/containers/Bundle/Application/6F4E/Shop.app/Shop', { inProject: false }),
          { method: 'm', file: '/data/app/com.example/lib/arm64/libshop.so', frameAddress: 4096, type: 'c' },
          cocoa('/private/var/containers/Bundle/Application/6F4E/Shop.app/Shop', { type: 'cocoa' }),
        ],
      },
    ])
    expect(event.payload.exceptions[0]!.stacktrace.map((frame) => frame.in_project)).toEqual([false, false, true, true, false, false, true])
    expect(event.grouping.reason).toBe('in_project_frame')
  })

  it('keeps what it can of odd addresses, and no native part on frames of script code', () => {
    const event = normalizeExceptions([
      {
        errorClass: 'SIGABRT',
        stacktrace: [
          { method: 'a', frameAddress: 'not an address', loadAddress: -5, codeIdentifier: 'abc' },
          { method: 'b', frameAddress: '4096', loadAddress: '0x2000' },
          { method: 'c', frameAddress: `0x${'f'.repeat(40)}` },
          { file: 'src/app.js', method: 'run', lineNumber: 3 },
          // Wider than 128 bits as a JSON number and as 39 decimal digits; 2^128 - 1 still fits.
          { method: 'd', frameAddress: 1e300, codeIdentifier: 'wide' },
          { method: 'e', frameAddress: '9'.repeat(39), loadAddress: (2n ** 128n - 1n).toString() },
        ],
      },
    ])
    const [odd, belowLoad, huge, script, wideNumber, wideDecimal] = event.payload.exceptions[0]!.stacktrace
    expect(wideNumber!.native).toMatchObject({ frame_address: null, code_identifier: 'wide' })
    expect(wideDecimal!.native).toMatchObject({ frame_address: null, load_address: `0x${'f'.repeat(32)}` })
    expect(odd!.native).toMatchObject({ frame_address: null, load_address: null, relative_address: null, code_identifier: 'abc' })
    // A frame address below the load address has no meaningful offset.
    expect(belowLoad!.native).toMatchObject({ frame_address: '0x1000', load_address: '0x2000', relative_address: null })
    expect(huge!.native).toBeUndefined()
    expect(script).not.toHaveProperty('native')
    for (const name of notifyFixtures) {
      const { normalized } = normalizeFixture(name)
      for (const frame of normalized.payload.exceptions.flatMap((e) => e.stacktrace)) expect(frame).not.toHaveProperty('native')
    }
  })

  it('keeps the registers a native crash was sent with', () => {
    const event = normalizeExceptions([
      {
        errorClass: 'SIGSEGV',
        stacktrace: [],
        registers: [
          { frameIndex: 0, registerValues: [{ registerName: 'x0', registerValue: 4096 }, { registerName: 'pc', registerValue: '0x7843f5b698' }, { registerValue: 1 }] },
          'junk',
        ],
      },
      { errorClass: 'Cause', stacktrace: [] },
    ])
    expect(event.payload.exceptions[0]!.registers).toEqual([
      { frame_index: 0, values: [{ name: 'x0', value: '0x1000' }, { name: 'pc', value: '0x7843f5b698' }] },
    ])
    expect(event.payload.exceptions[1]).not.toHaveProperty('registers')
  })
})

describe('grouping', () => {
  const frame = (file: string, method: string | null, line: number, inProject = false) => ({
    file,
    method,
    line,
    column: 1,
    in_project: inProject,
    code: null,
  })
  const exception = (cls: string, message: string, stacktrace: EventException['stacktrace']): EventException => ({
    class: cls,
    message,
    type: 'nodejs',
    stacktrace,
  })

  it('uses the groupingHash from the payload when present', () => {
    const a = computeGrouping([exception('A', 'x', [frame('a.js', 'f', 1, true)])], 'checkout-failures')
    const b = computeGrouping([exception('B', 'y', [])], 'checkout-failures')
    expect(a).toEqual(b)
    expect(a.reason).toBe('grouping_hash')
  })

  it('splits any group by the notifier\'s grouping discriminator, keeping the rule that grouped it', () => {
    const frames = [frame('src/app.js', 'handler', 10, true)]
    const plain = computeGrouping([exception('TypeError', 'a', frames)], null)
    const tenantA = computeGrouping([exception('TypeError', 'b', frames)], null, 'tenant-a')
    expect(tenantA.reason).toBe('in_project_frame')
    expect(tenantA.hash).not.toBe(plain.hash)
    expect(computeGrouping([exception('TypeError', 'c', frames)], null, 'tenant-a').hash).toBe(tenantA.hash)
    expect(computeGrouping([exception('TypeError', 'c', frames)], null, 'tenant-b').hash).not.toBe(tenantA.hash)
    const custom = computeGrouping([exception('A', 'x', [])], 'checkout', 'eu')
    expect(custom).toMatchObject({ reason: 'grouping_hash' })
    expect(custom.hash).not.toBe(computeGrouping([exception('A', 'x', [])], 'checkout').hash)
  })

  it('groups by class and the first in-project frame, ignoring line, column and message', () => {
    const lib = frame('node_modules/lib/index.js', 'call', 10)
    const one = computeGrouping([exception('TypeError', 'a', [lib, frame('src/app.js', 'handler', 10, true)])], null)
    const two = computeGrouping([exception('TypeError', 'b', [frame('node_modules/lib/index.js', 'call', 99), frame('src/app.js', 'handler', 42, true)])], null)
    expect(one.reason).toBe('in_project_frame')
    expect(one.hash).toBe(two.hash)
    const otherMethod = computeGrouping([exception('TypeError', 'a', [lib, frame('src/app.js', 'other', 10, true)])], null)
    expect(otherMethod.hash).not.toBe(one.hash)
    const otherClass = computeGrouping([exception('RangeError', 'a', [lib, frame('src/app.js', 'handler', 10, true)])], null)
    expect(otherClass.hash).not.toBe(one.hash)
  })

  it('looks only at the outermost exception of a cause chain', () => {
    const outer = exception('Error', 'outer', [frame('src/a.js', 'run', 1, true)])
    const withCause = computeGrouping([outer, exception('TypeError', 'inner', [frame('src/b.js', 'deep', 5, true)])], null)
    expect(withCause.hash).toBe(computeGrouping([outer], null).hash)
  })

  it('falls back to the first frame, then to class and message', () => {
    const top = computeGrouping([exception('Error', 'm1', [frame('http://x/app.js', 'go', 1), frame('http://x/b.js', 'z', 2)])], null)
    expect(top.reason).toBe('top_frame')
    expect(top.hash).toBe(computeGrouping([exception('Error', 'm2', [frame('http://x/app.js', 'go', 7)])], null).hash)
    const bare = computeGrouping([exception('Error', 'disk full', [])], null)
    expect(bare.reason).toBe('error_class_and_message')
    expect(bare.hash).toBe(computeGrouping([exception('Error', 'disk full', [])], null).hash)
    expect(bare.hash).not.toBe(computeGrouping([exception('Error', 'disk empty', [])], null).hash)
  })

  it('normalizes cache busters, origins and file:// prefixes so the same code groups together', () => {
    expect(normalizeFileForGrouping('https://cdn.example.com/app.js?v=123')).toBe('/app.js')
    expect(normalizeFileForGrouping('https://cdn.example.com/app.js#frag')).toBe('/app.js')
    expect(normalizeFileForGrouping('file:///app/notify.mjs')).toBe('/app/notify.mjs')
    // Per-install folders: iOS containers, CodePush package hashes.
    expect(
      normalizeFileForGrouping('/private/var/containers/Bundle/Application/0F3E5A2C-9B1D-4C6E-8A7F-1B2C3D4E5F60/Shop.app/main.jsbundle'),
    ).toBe('/private/var/containers/Bundle/Application/*/Shop.app/main.jsbundle')
    expect(
      normalizeFileForGrouping('/data/user/0/com.shop/files/CodePush/3f1c9a0e8b7d6c5b4a3928170f6e5d4c3b2a19087f6e5d4c3b2a1908f7e6d5c4/index.android.bundle'),
    ).toBe('/data/user/0/com.shop/files/CodePush/*/index.android.bundle')
    expect(normalizeFileForGrouping('/app/0f3e5a2c/index.js')).toBe('/app/0f3e5a2c/index.js')
    // Expo updates name the bundle after its hash.
    expect(normalizeFileForGrouping('/data/user/0/com.shop/files/.expo-internal/0436e5821bff7b95a84c21f22a43cb96.bundle')).toBe(
      '/data/user/0/com.shop/files/.expo-internal/*.bundle',
    )
    const v1 = computeGrouping([exception('E', 'm', [frame('https://cdn/app.js?v=1', 'f', 1)])], null)
    const v2 = computeGrouping([exception('E', 'm', [frame('https://cdn/app.js?v=2', 'f', 9)])], null)
    expect(v1.hash).toBe(v2.hash)
    const esm = computeGrouping([exception('E', 'm', [frame('file:///app/x.mjs', 'f', 1, true)])], null)
    const plain = computeGrouping([exception('E', 'm', [frame('/app/x.mjs', 'f', 1, true)])], null)
    expect(esm.hash).toBe(plain.hash)
  })

  it('groups a native frame by its module\'s name and method, so installs with different paths share an error', () => {
    const ndkFrame = (installPath: string, method: string | null, frameAddress: number, loadAddress: number) => ({
      ...frame(`${installPath}/lib/arm64/libcrash.so`, method, 5784),
      native: {
        type: 'c', module: `${installPath}/lib/arm64/libcrash.so`, frame_address: `0x${frameAddress.toString(16)}`,
        load_address: `0x${loadAddress.toString(16)}`, symbol_address: null,
        relative_address: `0x${(frameAddress - loadAddress).toString(16)}`, is_pc: true, is_lr: false,
        code_identifier: null, macho_uuid: null, macho_vm_address: null,
      },
    })
    const group = (f: StackFrame) => computeGrouping([exception('SIGSEGV', 'Segmentation violation', [f])], null).hash
    // Android puts a random part in every install's path, and ASLR moves the load address.
    const installA = group(ndkFrame('/data/app/~~Qx1==/com.example-Ab3==', 'crash_here', 0x7843f5b698, 0x7843f5a000))
    const installB = group(ndkFrame('/data/app/~~Zz9==/com.example-Kp0==', 'crash_here', 0x6000001698, 0x6000000000))
    expect(installB).toBe(installA)
    expect(group(ndkFrame('/data/app/~~Qx1==/com.example-Ab3==', 'level_two', 0x7843f5b6b8, 0x7843f5a000))).not.toBe(installA)
    // Not symbolicated: the address inside the module stands in for the method.
    const bareA = group(ndkFrame('/data/app/a', null, 0x7000001698, 0x7000000000))
    expect(group(ndkFrame('/data/app/b', null, 0x5000001698, 0x5000000000))).toBe(bareA)
    expect(group(ndkFrame('/data/app/a', null, 0x70000016b8, 0x7000000000))).not.toBe(bareA)
    // Older payloads without a load address: the line (Android's relative address), not the moving absolute one.
    const noLoad = (f: ReturnType<typeof ndkFrame>) => ({ ...f, native: { ...f.native, load_address: null, relative_address: null } })
    expect(group(noLoad(ndkFrame('/data/app/b', null, 0x5000001698, 0x5000000000)))).toBe(
      group(noLoad(ndkFrame('/data/app/a', null, 0x7000001698, 0x7000000000))),
    )
  })

  it('groups the captured browser cause chain and handled error apart, and stably', () => {
    const a = normalizeFixture('browser-notify-handled.request.json').normalized.grouping
    const b = normalizeFixture('browser-notify-cause-chain.request.json').normalized.grouping
    expect(a.hash).not.toBe(b.hash)
    expect(normalizeFixture('browser-notify-handled.request.json').normalized.grouping).toEqual(a)
  })
})

describe('user agent parsing', () => {
  it.each([
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome', '126.0.0.0', 'Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.56', 'Edge', '126.0.2592.56', 'Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari', '17.5', 'macOS'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox', '127.0', 'Linux'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari', '17.5', 'iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36', 'Chrome', '126.0.6478.71', 'Android'],
    // Headless Chrome (Puppeteer, Playwright, CI browsers): still Chrome.
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36', 'Chrome', '120.0.6099.28', 'Linux'],
  ])('%s', (ua, browserName, browserVersion, osName) => {
    expect(parseUserAgent(ua)).toEqual({ browserName, browserVersion, osName })
  })
})
