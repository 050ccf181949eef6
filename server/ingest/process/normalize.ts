import {
  TRUNCATION_MARKER,
  type Breadcrumb,
  type EventException,
  type EventThread,
  type FeatureFlag,
  type FrameRegisters,
  type NativeFrame,
  type StackFrame,
} from '../../../contract/events.ts'
import type { Severity } from '../../../contract/errors.ts'
import { newId } from '../../db/ids.ts'
import type { StoredEventPayload } from '../../events/event-payload.ts'
import { computeGrouping } from './grouping.ts'
import { DEFAULT_RELEASE_STAGE, type CrashedSession, type EventColumns, type NormalizedEvent, type PreparedEvent } from '../payload/event-row.ts'
import { parseNotifierTime } from '../payload/notifier-time.ts'
import type { EventInput, NotifyPayload } from '../payload/payload-schema.ts'
import { parseUserAgent } from './user-agent.ts'

// Session labels and ids, as the session payload's are cut (payload-schema.ts).
const MAX_SESSION_CHARS = 255
const MINUTE_MS = 60_000
// Indexed columns hold a bounded prefix; the payload keeps more (INGEST_LIMITS.stringChars).
const MAX_COLUMN_CHARS = 4096

/**
 * What the stored payload keeps of one event (docs/ingestion.md). The body limit bounds a
 * payload already; these keep one event servable and the dashboard responsive, and the
 * depth limit keeps recursion (ours and JSON.stringify's) far from the stack limit.
 */
export const INGEST_LIMITS = {
  /** Characters per string anywhere in the payload; longer ones keep a prefix and a marker. */
  stringChars: 32_768,
  /** Nesting levels of free-form objects (metaData, app, device, …); deeper values become "[truncated]". */
  depth: 20,
  /** Frames per stacktrace: the top (innermost) ones. */
  frames: 1000,
  /** Breadcrumbs per event: the newest (the last ones sent). */
  breadcrumbs: 500,
  /** Exceptions per event (a cause chain): the outermost ones. */
  exceptions: 100,
  threads: 500,
  featureFlags: 1000,
  /** Source lines per frame's `code`. */
  codeLines: 50,
  /** Registers per frame of an exception's `registers`. */
  registers: 200,
} as const

const TRUNCATED = '[truncated]'
/** The metaData tab that keeps fields sent with a type Errata cannot read (e.g. `app: "x"`). */
const INVALID_FIELDS_TAB = 'invalid_fields'

type JsonObject = Record<string, unknown>

// ES2024 string methods (Node 20+); TypeScript's ES2023 lib does not declare them yet.
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string }

/**
 * Text PostgreSQL can store (text and jsonb refuse NUL characters and lone UTF-16
 * surrogates, which notifiers occasionally send; those become U+FFFD), cut to `max`
 * characters. Cut first, then repair: a cut can split a surrogate pair.
 */
function cleanText(value: string, max: number, marker = ''): string {
  let text = value.includes('\u0000') ? value.replaceAll('\u0000', '') : value
  if (text.length > max) text = text.slice(0, max) + marker
  const checked = text as WellFormedString
  return checked.isWellFormed() ? text : checked.toWellFormed()
}

function column(value: string | null | undefined): string | null {
  return value == null ? null : cleanText(value, MAX_COLUMN_CHARS)
}

// Pivoted columns are keys of pivot_counts and error_users, and a B-tree entry must fit in a
// third of a page (about 2,700 bytes): a 3 KB token in a URL failed the whole index batch.
// They keep what a filter value can hold (1,024 characters) and at most 2,048 bytes of UTF-8.
const MAX_PIVOT_CHARS = 1024
const MAX_PIVOT_BYTES = 2048
const utf8 = new TextEncoder()
const pivotBytes = new Uint8Array(MAX_PIVOT_BYTES)

/** A pivoted column's value: cut to fit an index entry; "" is no value, as NULL (pivots list neither). */
function pivotColumn(value: string | null | undefined): string | null {
  if (value == null || value === '') return null
  let text = cleanText(value, MAX_PIVOT_CHARS)
  // A UTF-16 unit is at most 3 bytes of UTF-8; encodeInto stops before a character that does not fit.
  if (text.length * 3 > MAX_PIVOT_BYTES) text = text.slice(0, utf8.encodeInto(text, pivotBytes).read)
  return text === '' ? null : text
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A string of the payload; numbers and booleans a notifier sent where text is meant become text. */
function text(value: unknown): string | null {
  if (typeof value === 'string') return cleanText(value, INGEST_LIMITS.stringChars, TRUNCATION_MARKER)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return null
}

/**
 * The pivoted columns fitted as pivotColumn does: at normalization, and again by the indexer for
 * queued events, so one accepted before the cut existed (and set aside as failed) indexes when
 * retried.
 */
function fitPivotColumns(columns: EventColumns): EventColumns {
  return {
    ...columns,
    context: pivotColumn(columns.context),
    releaseStage: pivotColumn(columns.releaseStage) ?? DEFAULT_RELEASE_STAGE,
    appVersion: pivotColumn(columns.appVersion),
    osName: pivotColumn(columns.osName),
    osVersion: pivotColumn(columns.osVersion),
    browserName: pivotColumn(columns.browserName),
    deviceModel: pivotColumn(columns.deviceModel),
    userId: pivotColumn(columns.userId),
    requestUrl: pivotColumn(columns.requestUrl),
  }
}

/** true, "true", 1 and "1" are true; anything else is false. */
function flag(value: unknown): boolean {
  return value === true || value === 1 || value === 'true' || value === '1'
}

const MAX_LINE = 2 ** 31 - 1

/** A line or column: a non-negative integer (from a number or a numeric string), else null. */
function lineNumber(value: unknown): number | null {
  let n: number | null = null
  if (typeof value === 'number') n = Number.isFinite(value) ? Math.trunc(value) : null
  else if (typeof value === 'string' && /^\s*\d{1,10}\s*$/.test(value)) n = Number.parseInt(value, 10)
  return n !== null && n >= 0 && n <= MAX_LINE ? n : null
}

/**
 * Free-form JSON (metaData, app, device, …) made storable: clean strings and keys, at most
 * INGEST_LIMITS.depth levels. Recursion is bounded by that depth, so a 100,000-level
 * payload cannot overflow the stack. "__proto__" stays plain data.
 */
function sanitize(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return text(value)
  if (value === null || typeof value !== 'object') return value
  if (depth >= INGEST_LIMITS.depth) return TRUNCATED
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) items[i] = sanitize(value[i], depth + 1)
    return items
  }
  const out: JsonObject = {}
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const item = sanitize((value as JsonObject)[key], depth + 1)
    const name = cleanText(key, 1024, '…')
    // Defined, not assigned: "__proto__" from a payload must stay a plain key.
    if (name === '__proto__') Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true })
    else out[name] = item
  }
  return out
}

function sanitizeObject(value: JsonObject): JsonObject {
  return sanitize(value) as JsonObject
}

/**
 * Reads an optional section that must be an object. Anything else that was sent (a string,
 * an array, a number) is kept in `invalid` under the field's name instead of refusing the event.
 */
function section(value: unknown, name: string, invalid: JsonObject): JsonObject | null {
  if (isObject(value)) return value
  // PHP's json_encode writes an empty array for an empty map (bugsnag-php's default user, metaData).
  if (Array.isArray(value) && value.length === 0) return null
  if (value != null) invalid[name] = sanitize(value, 1)
  return null
}

/** An optional list; anything else sent is kept in `invalid`. */
function list(value: unknown, name: string, invalid: JsonObject): unknown[] {
  if (Array.isArray(value)) return value
  if (value != null) invalid[name] = sanitize(value, 1)
  return []
}

// 128-bit at most: wider "addresses" are not addresses, and BigInt of a huge string is slow.
const MAX_ADDRESS_DIGITS = 32
const MAX_ADDRESS = 1n << 128n

/**
 * An address as "0x…" lower-case hex. Android sends JSON numbers, Cocoa hex strings ("0x1a2b");
 * decimal strings are read too. Strings go through BigInt, so 64-bit addresses keep every bit.
 */
function address(value: unknown): bigint | null {
  let parsed: bigint | null = null
  if (typeof value === 'number') parsed = Number.isFinite(value) && value >= 0 ? BigInt(Math.trunc(value)) : null
  else if (typeof value === 'string') {
    const trimmed = value.trim().toLowerCase()
    const digits = /^0x([0-9a-f]+)$/.exec(trimmed)?.[1]
    if (digits !== undefined) parsed = digits.length <= MAX_ADDRESS_DIGITS ? BigInt(trimmed) : null
    else parsed = /^\d{1,39}$/.test(trimmed) ? BigInt(trimmed) : null
  }
  // Numbers (1e300) and 39-digit decimals can still be wider than 128 bits.
  return parsed !== null && parsed < MAX_ADDRESS ? parsed : null
}

const hex = (value: bigint | null): string | null => (value === null ? null : `0x${value.toString(16)}`)

/** The native part of a frame, or undefined when the notifier sent no address or module id (a frame of script code). */
function toNativeFrame(frame: JsonObject): NativeFrame | undefined {
  const frameAddress = address(frame.frameAddress)
  const loadAddress = address(frame.loadAddress) ?? address(frame.machoLoadAddress)
  const symbolAddress = address(frame.symbolAddress)
  const codeIdentifier = nonEmpty(text(frame.codeIdentifier))
  const machoUuid = nonEmpty(text(frame.machoUUID))
  if (frameAddress === null && loadAddress === null && symbolAddress === null && codeIdentifier === null && machoUuid === null && frame.debugId == null) return undefined
  const relative = frameAddress !== null && loadAddress !== null && frameAddress >= loadAddress ? frameAddress - loadAddress : null
  return {
    type: text(frame.type),
    module: nonEmpty(text(frame.machoFile)) ?? nonEmpty(text(frame.file)),
    frame_address: hex(frameAddress),
    load_address: hex(loadAddress),
    symbol_address: hex(symbolAddress),
    relative_address: hex(relative),
    is_pc: flag(frame.isPC),
    is_lr: flag(frame.isLR),
    code_identifier: codeIdentifier,
    macho_uuid: machoUuid,
    macho_vm_address: hex(address(frame.machoVMAddress)),
    // Frames Errata makes from a minidump's stack walk (server/native/minidump-event.ts) carry these too.
    ...optionalMinidumpFields(frame),
  }
}

const TRUST = new Set(['context', 'cfi', 'frame_pointer', 'scan'])

function optionalMinidumpFields(frame: JsonObject): Pick<NativeFrame, 'debug_id' | 'lookup_address' | 'trust'> {
  const debugId = text(frame.debugId)
  const lookup = address(frame.lookupAddress)
  const trust = text(frame.trust)
  return {
    ...(debugId !== null && /^[0-9A-F]{33,40}$/.test(debugId) && { debug_id: debugId }),
    ...(lookup !== null && { lookup_address: hex(lookup)! }),
    ...(trust !== null && TRUST.has(trust) && { trust: trust as NonNullable<NativeFrame['trust']> }),
  }
}

/**
 * The app's own executable inside its bundle: `…/Shop.app/Shop` (iOS, tvOS) or
 * `…/Shop.app/Contents/MacOS/Shop` (macOS). Not its embedded frameworks or system libraries.
 */
function isAppExecutable(module: string | null): boolean {
  const match = module === null ? null : /\/([^/]+)\.app\/(?:Contents\/MacOS\/)?([^/]+)$/.exec(module)
  return match !== null && match[1] === match[2]
}

function toFrame(frame: unknown): StackFrame | null {
  // Some clients send frames as text ("at run (app.js:1:2)"); keep the text as the method.
  if (typeof frame === 'string') return { line: null, column: null, file: null, method: text(frame), in_project: false, code: null }
  if (!isObject(frame)) return null
  let code: Record<string, string> | null = null
  if (isObject(frame.code)) {
    code = {}
    for (const [line, source] of Object.entries(frame.code).slice(0, INGEST_LIMITS.codeLines)) {
      const sourceText = text(source)
      if (sourceText !== null) code[cleanText(line, 32)] = sourceText
    }
  }
  const out: StackFrame = {
    line: lineNumber(frame.lineNumber),
    column: lineNumber(frame.columnNumber),
    file: text(frame.file),
    method: text(frame.method),
    in_project: flag(frame.inProject),
    code,
  }
  const native = toNativeFrame(frame)
  if (native) {
    out.native = native
    // Cocoa notifiers do not mark frames (nor, from KSCrash reports, give them a type); the app's
    // own executable is its project code (as Bugsnag treats it), so its first frame groups the
    // error rather than objc_msgSend or another system frame. Mach-O fields say a frame is Cocoa's.
    const machO = frame.machoFile != null || frame.machoUUID != null || frame.machoLoadAddress != null
    if (frame.inProject === undefined && machO) out.in_project = isAppExecutable(native.module)
  }
  return out
}

function toStacktrace(value: unknown): StackFrame[] {
  // A stack as one string: one frame per line.
  const frames = typeof value === 'string' ? value.split('\n').filter((line) => line.trim() !== '') : Array.isArray(value) ? value : []
  const out: StackFrame[] = []
  for (const frame of frames) {
    if (out.length >= INGEST_LIMITS.frames) break
    const read = toFrame(frame)
    if (read) out.push(read)
  }
  return out
}

/** `registers: [{frameIndex, registerValues: [{registerName, registerValue}]}]`, values as hex where they are numbers. */
function toRegisters(value: unknown): FrameRegisters[] | undefined {
  if (!Array.isArray(value)) return undefined
  const out: FrameRegisters[] = []
  for (const item of value.slice(0, INGEST_LIMITS.frames)) {
    if (!isObject(item)) continue
    const values: FrameRegisters['values'] = []
    for (const register of Array.isArray(item.registerValues) ? item.registerValues.slice(0, INGEST_LIMITS.registers) : []) {
      if (!isObject(register)) continue
      const name = text(register.registerName)
      const raw = register.registerValue
      const registerValue = typeof raw === 'number' ? hex(address(raw)) : text(raw)
      if (name !== null && registerValue !== null) values.push({ name, value: registerValue })
    }
    out.push({ frame_index: lineNumber(item.frameIndex), values })
  }
  return out.length > 0 ? out : undefined
}

function toExceptions(event: EventInput): EventException[] {
  return event.exceptions.slice(0, INGEST_LIMITS.exceptions).map((exception) => {
    const out: EventException = {
      class: text(exception.errorClass) ?? '',
      message: text(exception.errorMessage) ?? text(exception.message) ?? '',
      type: text(exception.type),
      stacktrace: toStacktrace(exception.stacktrace),
    }
    const registers = toRegisters(exception.registers)
    if (registers) out.registers = registers
    return out
  })
}

/** A breadcrumb time as ISO 8601: from a parseable string or epoch milliseconds, else null. */
function toTimestamp(value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null
  const time = typeof value === 'number' ? value : parseNotifierTime(value)
  if (!Number.isFinite(time)) return null
  const date = new Date(time)
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}

function toBreadcrumb(crumb: unknown): Breadcrumb | null {
  if (typeof crumb === 'string' || typeof crumb === 'number') return { timestamp: null, name: text(crumb) ?? '', type: 'manual', meta_data: {} }
  if (!isObject(crumb)) return null
  const invalid: JsonObject = {}
  const metaData = section(crumb.metaData, 'metaData', invalid)
  const timestamp = toTimestamp(crumb.timestamp)
  if (timestamp === null && crumb.timestamp != null) invalid.timestamp = sanitize(crumb.timestamp, 1)
  const meta = metaData ? sanitizeObject(metaData) : {}
  if (Object.keys(invalid).length > 0) meta[INVALID_FIELDS_TAB] = invalid
  return { timestamp, name: text(crumb.name) ?? '', type: text(crumb.type) ?? 'manual', meta_data: meta }
}

function toBreadcrumbs(crumbs: unknown[]): Breadcrumb[] {
  const out: Breadcrumb[] = []
  // Newest last: keep the end of the list, the crumbs that led to the error.
  for (let i = crumbs.length - 1; i >= 0 && out.length < INGEST_LIMITS.breadcrumbs; i--) {
    const crumb = toBreadcrumb(crumbs[i])
    if (crumb) out.push(crumb)
  }
  return out.reverse()
}

function toFeatureFlags(flags: unknown[]): FeatureFlag[] {
  const out: FeatureFlag[] = []
  for (const item of flags) {
    if (out.length >= INGEST_LIMITS.featureFlags) break
    // A flag without a name cannot be shown or filtered on (Bugsnag drops them too).
    const name = isObject(item) ? text(item.featureFlag) : null
    if (name) out.push({ name, variant: text((item as JsonObject).variant) })
  }
  return out
}

function toThreads(threads: unknown[]): EventThread[] {
  return threads
    .filter(isObject)
    .slice(0, INGEST_LIMITS.threads)
    .map((thread) => ({
      id: text(thread.id),
      name: text(thread.name),
      type: text(thread.type),
      error_reporting_thread: flag(thread.errorReportingThread),
      state: text(thread.state),
      stacktrace: toStacktrace(thread.stacktrace),
    }))
}

function nonEmpty(value: string | null): string | null {
  return value === '' ? null : value
}

/** error, warning or info; any other severity a notifier sends ("fatal", "critical") is an error. */
function toSeverity(value: unknown, unhandled: boolean): Severity {
  if (typeof value === 'string' && value.trim() !== '') {
    const lower = value.trim().toLowerCase()
    return lower === 'warning' || lower === 'info' || lower === 'error' ? lower : 'error'
  }
  return unhandled ? 'error' : 'warning'
}

/**
 * Browser and OS for the indexed columns: what the notifier says in `device`, else read
 * from `device.userAgent`, else (browser notifiers only) from the POST's own User-Agent.
 * Derived values are written back into `device` so the dashboard shows them too.
 */
function describeDevice(device: JsonObject, postUserAgent: string | null): { osName: string | null; browserName: string | null } {
  const userAgent = nonEmpty(text(device.userAgent)) ?? postUserAgent
  const parsed = userAgent ? parseUserAgent(userAgent) : null
  const browserName = nonEmpty(text(device.browserName)) ?? parsed?.browserName ?? null
  const osName = nonEmpty(text(device.osName)) ?? parsed?.osName ?? null
  if (parsed) {
    if (browserName && device.browserName == null) device.browserName = browserName
    if (parsed.browserVersion && device.browserVersion == null) device.browserVersion = parsed.browserVersion
    if (osName && device.osName == null) device.osName = osName
  }
  return { osName, browserName }
}

/** `severityReason.attributes` as text values (at most 20); undefined when there are none. */
function toReasonAttributes(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined
  const entries: [string, string][] = []
  for (const [key, item] of Object.entries(value).slice(0, 20)) {
    const itemText = text(item)
    if (itemText !== null) entries.push([cleanText(key, 256, '…'), itemText])
  }
  // fromEntries defines own properties: a "__proto__" key stays plain data.
  return entries.length > 0 ? Object.fromEntries(entries) : undefined
}

/** `section[key] = value` when the section lacks the key and the event-level value is text. */
function fillFromEvent(section: JsonObject, key: string, value: unknown) {
  const filled = text(value)
  if (section[key] == null && filled !== null && filled !== '') section[key] = filled
}

const REQUEST_TAB_FIELDS = ['url', 'httpMethod', 'clientIp', 'referer', 'headers'] as const

/** The request section's standard fields, read from a "request" metadata tab (already sanitized). */
function requestFromTab(tab: JsonObject): JsonObject {
  const request: JsonObject = {}
  for (const key of REQUEST_TAB_FIELDS) if (tab[key] != null) request[key] = tab[key]
  // bugsnag-java's servlet, Spring and JAX-RS callbacks name it `method`.
  if (request.httpMethod == null && typeof tab.method === 'string') request.httpMethod = tab.method
  return request
}

/** One notifier event as Errata stores it: columns, full payload, group and user key. */
export function normalizeEvent(
  event: EventInput,
  notifierIn: unknown,
  postUserAgent: string | null = null,
): NormalizedEvent {
  const notifier = isObject(notifierIn) ? sanitizeObject(notifierIn) : null
  // Sections sent with a type we cannot read; kept in meta_data rather than refusing the event.
  const invalid: JsonObject = {}
  const exceptions = toExceptions(event)
  const unhandled = flag(event.unhandled)
  const severity = toSeverity(event.severity, unhandled)
  const appIn = section(event.app, 'app', invalid)
  const deviceIn = section(event.device, 'device', invalid)
  const requestIn = section(event.request, 'request', invalid)
  const userIn = section(event.user, 'user', invalid)
  const severityReason = section(event.severityReason, 'severityReason', invalid)
  const metaData = section(event.metaData, 'metaData', invalid)
  const session = section(event.session, 'session', invalid)
  const breadcrumbs = toBreadcrumbs(list(event.breadcrumbs, 'breadcrumbs', invalid))
  const featureFlags = toFeatureFlags(list(event.featureFlags, 'featureFlags', invalid))
  const threads = toThreads(list(event.threads, 'threads', invalid))

  const app = appIn ? sanitizeObject(appIn) : {}
  const device = deviceIn ? sanitizeObject(deviceIn) : {}
  const meta = metaData ? sanitizeObject(metaData) : {}
  // Server notifiers (Ruby, Python, Java) describe the request in a "request" metadata tab; it
  // stays there, and its standard fields also fill the request section the dashboard and filters read.
  const request = requestIn ? sanitizeObject(requestIn) : isObject(meta.request) ? requestFromTab(meta.request) : {}
  // Older payloads and bugsnag-python put these on the event itself; they fill the sections when absent.
  fillFromEvent(app, 'releaseStage', event.releaseStage)
  fillFromEvent(app, 'version', event.appVersion)
  fillFromEvent(device, 'osVersion', event.osVersion)
  const releaseStage = nonEmpty(text(app.releaseStage)) ?? DEFAULT_RELEASE_STAGE
  const appVersion = text(app.version)
  const isBrowserNotifier = typeof notifier?.name === 'string' && /javascript|browser/i.test(notifier.name)
  const { osName, browserName } = describeDevice(device, isBrowserNotifier ? postUserAgent : null)
  const osVersion = text(device.osVersion)
  const user = { id: text(userIn?.id) ?? text(event.userId), email: text(userIn?.email), name: text(userIn?.name) }
  const context = text(event.context)
  const groupingHash = nonEmpty(text(event.groupingHash))
  const groupingDiscriminator = nonEmpty(text(event.groupingDiscriminator))
  const outer = exceptions[0]
  if (Object.keys(invalid).length > 0) meta[INVALID_FIELDS_TAB] = invalid

  const reasonAttributes = toReasonAttributes(severityReason?.attributes)
  const payload: StoredEventPayload = {
    severity,
    unhandled,
    severity_reason: text(severityReason?.type),
    ...(reasonAttributes && { severity_reason_attributes: reasonAttributes }),
    context,
    grouping_hash: groupingHash,
    ...(groupingDiscriminator && { grouping_discriminator: groupingDiscriminator }),
    app_version: appVersion,
    release_stage: releaseStage,
    os_version: osVersion,
    user_id: user.id,
    exceptions,
    meta_data: meta,
    user,
    app,
    device,
    request,
    breadcrumbs,
    feature_flags: featureFlags,
    threads,
    session: session ? sanitizeObject(session) : null,
    notifier,
  }

  const userKey = nonEmpty(user.id) ?? nonEmpty(user.email) ?? nonEmpty(text(device.id))
  return {
    payload,
    grouping: computeGrouping(exceptions, groupingHash, groupingDiscriminator),
    userKey: pivotColumn(userKey),
    // The pivoted columns are fitted in one place (fitPivotColumns), the indexer's too.
    columns: fitPivotColumns({
      severity,
      unhandled,
      errorClass: column(outer?.class) ?? '',
      message: column(outer?.message) ?? '',
      context,
      releaseStage,
      appVersion,
      osName,
      osVersion,
      browserName,
      deviceModel: text(device.model),
      userId: user.id,
      userEmail: column(user.email),
      userName: column(user.name),
      requestUrl: text(request.url),
    }),
  }
}

/** Every event of a validated payload, normalized, with its id (made when it was accepted). */
export function prepareEvents(
  projectId: string,
  receivedAt: Date,
  payload: NotifyPayload,
  postUserAgent: string | null,
  eventIds: readonly string[] = payload.events.map(() => newId(receivedAt.getTime())),
): PreparedEvent[] {
  // Cleaned once here; normalizeEvent's own pass over the small result is cheap.
  const notifier = isObject(payload.notifier) ? sanitizeObject(payload.notifier) : null
  return payload.events.map((event, i) => {
    const normalized = normalizeEvent(event, notifier, postUserAgent)
    const crashedSession = crashedSessionOf(normalized, receivedAt)
    return {
      id: eventIds[i]!,
      projectId,
      receivedAt,
      columns: normalized.columns,
      grouping: normalized.grouping,
      userKey: normalized.userKey,
      payload: normalized.payload,
      ...(crashedSession && { crashedSession }),
    }
  })
}

/** The session an unhandled event crashed, or null (handled, or no session id). */
export function crashedSessionOf(event: NormalizedEvent, receivedAt: Date): CrashedSession | null {
  const session = event.payload.session
  if (!event.columns.unhandled || !session) return null
  const id = nonEmpty(text(session.id))
  if (!id) return null
  const startedAt = typeof session.startedAt === 'string' || typeof session.startedAt === 'number' ? parseNotifierTime(String(session.startedAt)) : Number.NaN
  const year = new Date(startedAt).getUTCFullYear()
  const time = Number.isNaN(startedAt) || year < 1 || year > 9999 ? receivedAt.getTime() : startedAt
  return {
    id: cleanText(id, MAX_SESSION_CHARS),
    startedMinute: new Date(Math.floor(time / MINUTE_MS) * MINUTE_MS).toISOString(),
    releaseStage: nonEmpty(cleanText(event.columns.releaseStage, MAX_SESSION_CHARS)) ?? DEFAULT_RELEASE_STAGE,
    appVersion: cleanText(event.columns.appVersion ?? '', MAX_SESSION_CHARS),
  }
}

