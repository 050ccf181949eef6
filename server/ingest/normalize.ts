import type { Breadcrumb, EventException, EventThread, FeatureFlag, StackFrame } from '../../contract/events.ts'
import type { Severity } from '../../contract/errors.ts'
import { newId } from '../db/ids.ts'
import { encodeEventPayload, type StoredEventPayload } from '../events/event-payload.ts'
import { computeGrouping, type Grouping } from './grouping.ts'
import type { EventInput, NotifyPayload, StackFrameInput } from './payload-schema.ts'
import { parseUserAgent } from './user-agent.ts'

/** The indexed columns of one events row (see 0001-init.sql), minus ids and time. */
export interface EventColumns {
  severity: Severity
  unhandled: boolean
  errorClass: string
  message: string
  context: string | null
  releaseStage: string
  appVersion: string | null
  osName: string | null
  osVersion: string | null
  browserName: string | null
  deviceModel: string | null
  userId: string | null
  userEmail: string | null
  userName: string | null
  requestUrl: string | null
}

export interface NormalizedEvent {
  columns: EventColumns
  payload: StoredEventPayload
  grouping: Grouping
  /** Who counts as one affected user: user id, else email, else device id. */
  userKey: string | null
}

/** What the ingest writer stores for one event: its row, its compressed payload, its group. */
export interface PreparedEvent {
  id: string
  projectId: string
  receivedAt: Date
  columns: EventColumns
  grouping: Grouping
  userKey: string | null
  payload: Buffer
}

export const DEFAULT_RELEASE_STAGE = 'production'
// Indexed columns hold a bounded prefix; the payload keeps the full text.
const MAX_COLUMN_CHARS = 4096

type JsonObject = Record<string, unknown>

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * PostgreSQL text (and jsonb, which carries the rows to the database) cannot hold NUL
 * characters or lone UTF-16 surrogates; notifiers occasionally send both.
 */
function column(value: string | null | undefined): string | null {
  if (value == null) return null
  const clean = value.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD')
  return clean.length > MAX_COLUMN_CHARS ? clean.slice(0, MAX_COLUMN_CHARS) : clean
}

function toInt(value: number | string | null | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number.parseInt(value, 10)
  return null
}

function toFrame(frame: StackFrameInput): StackFrame {
  let code: Record<string, string> | null = null
  if (frame.code) {
    code = {}
    for (const [line, text] of Object.entries(frame.code)) code[line] = typeof text === 'string' ? text : String(text)
  }
  return {
    line: toInt(frame.lineNumber),
    column: toInt(frame.columnNumber),
    file: frame.file ?? null,
    method: frame.method ?? null,
    in_project: frame.inProject === true,
    code,
  }
}

function toExceptions(event: EventInput): EventException[] {
  return event.exceptions.map((exception) => ({
    class: exception.errorClass,
    message: exception.errorMessage ?? exception.message ?? '',
    type: exception.type ?? null,
    stacktrace: (exception.stacktrace ?? []).map(toFrame),
  }))
}

function toBreadcrumbs(event: EventInput): Breadcrumb[] {
  return (event.breadcrumbs ?? []).map((crumb) => ({
    timestamp: crumb.timestamp ?? null,
    name: crumb.name ?? '',
    type: crumb.type ?? 'manual',
    meta_data: crumb.metaData ?? {},
  }))
}

function toFeatureFlags(event: EventInput): FeatureFlag[] {
  return (event.featureFlags ?? []).map((flag) => ({ name: flag.featureFlag, variant: flag.variant ?? null }))
}

function toThreads(event: EventInput): EventThread[] {
  return (event.threads ?? []).map((thread) => ({
    id: thread.id ?? null,
    name: thread.name ?? null,
    type: thread.type ?? null,
    error_reporting_thread: thread.errorReportingThread === true,
    state: thread.state ?? null,
    stacktrace: (thread.stacktrace ?? []).map(toFrame),
  }))
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/**
 * Browser and OS for the indexed columns: what the notifier says in `device`, else read
 * from `device.userAgent`, else (browser notifiers only) from the POST's own User-Agent.
 * Derived values are written back into `device` so the dashboard shows them too.
 */
function describeDevice(event: EventInput, postUserAgent: string | null): { device: JsonObject; osName: string | null; browserName: string | null } {
  const device: JsonObject = { ...(event.device ?? {}) }
  const userAgent = stringOrNull(device.userAgent) ?? postUserAgent
  const parsed = userAgent ? parseUserAgent(userAgent) : null
  const browserName = stringOrNull(device.browserName) ?? parsed?.browserName ?? null
  const osName = stringOrNull(device.osName) ?? parsed?.osName ?? null
  if (parsed) {
    if (browserName && device.browserName == null) device.browserName = browserName
    if (parsed.browserVersion && device.browserVersion == null) device.browserVersion = parsed.browserVersion
    if (osName && device.osName == null) device.osName = osName
  }
  return { device, osName, browserName }
}

/** One notifier event as Errata stores it: columns, full payload, group and user key. */
export function normalizeEvent(
  event: EventInput,
  notifier: JsonObject | null,
  postUserAgent: string | null = null,
): NormalizedEvent {
  const exceptions = toExceptions(event)
  const unhandled = event.unhandled === true
  const severity: Severity = event.severity ?? (unhandled ? 'error' : 'warning')
  const app: JsonObject = { ...(event.app ?? {}) }
  const releaseStage = event.app?.releaseStage || DEFAULT_RELEASE_STAGE
  const appVersion = event.app?.version ?? null
  const isBrowserNotifier = typeof notifier?.name === 'string' && /javascript|browser/i.test(notifier.name)
  const { device, osName, browserName } = describeDevice(event, isBrowserNotifier ? postUserAgent : null)
  const osVersion = event.device?.osVersion ?? null
  const user = {
    id: event.user?.id ?? null,
    email: event.user?.email ?? null,
    name: event.user?.name ?? null,
  }
  const request: JsonObject = { ...(event.request ?? {}) }
  const context = event.context ?? null
  const groupingHash = event.groupingHash || null
  const outer = exceptions[0]

  const payload: StoredEventPayload = {
    severity,
    unhandled,
    severity_reason: event.severityReason?.type ?? null,
    context,
    grouping_hash: groupingHash,
    app_version: appVersion,
    release_stage: releaseStage,
    os_version: osVersion,
    user_id: user.id,
    exceptions,
    meta_data: event.metaData ?? {},
    user,
    app,
    device,
    request,
    breadcrumbs: toBreadcrumbs(event),
    feature_flags: toFeatureFlags(event),
    threads: toThreads(event),
    session: event.session ?? null,
    notifier,
  }

  const userKey = user.id ?? user.email ?? stringOrNull(device.id)
  return {
    payload,
    grouping: computeGrouping(exceptions, groupingHash),
    userKey: column(userKey),
    columns: {
      severity,
      unhandled,
      errorClass: column(outer?.class) ?? '',
      message: column(outer?.message) ?? '',
      context: column(context),
      releaseStage: column(releaseStage) ?? DEFAULT_RELEASE_STAGE,
      appVersion: column(appVersion),
      osName: column(osName),
      osVersion: column(osVersion),
      browserName: column(browserName),
      deviceModel: column(event.device?.model),
      userId: column(user.id),
      userEmail: column(user.email),
      userName: column(user.name),
      requestUrl: column(event.request?.url),
    },
  }
}

/**
 * Every event of a validated payload, ready for the ingest writer (ids assigned, payload
 * compressed). Synchronous on purpose: gzip level 1 of a few KB takes ~80 µs inline,
 * while a thread-pool round trip per event cost four times that in measurements.
 */
export function prepareEvents(
  projectId: string,
  receivedAt: Date,
  payload: NotifyPayload,
  postUserAgent: string | null,
): PreparedEvent[] {
  const notifier = payload.notifier ?? null
  return payload.events.map((event) => {
    const normalized = normalizeEvent(event, notifier, postUserAgent)
    return {
      id: newId(receivedAt.getTime()),
      projectId,
      receivedAt,
      columns: normalized.columns,
      grouping: normalized.grouping,
      userKey: normalized.userKey,
      payload: encodeEventPayload(normalized.payload),
    }
  })
}
