// The JSON document a webhook sends (spec section 6, "Payload"), member by member. Optional
// members are left out when unknown, never sent as null. Built by the delivery job from what
// the database holds when the delivery is first attempted, then kept, so retries and
// redeliveries send the same document. What can change after the trigger fired (the error's
// status, assignee, severity and linked issue; the release's build details) is taken from the
// snapshot the trigger recorded in its details, so the document describes the moment it fired.
import { eq } from 'drizzle-orm'
import type { EventException, StackFrame } from '../../contract/events.ts'
import type { StateChange, WebhookTrigger } from '../../contract/webhooks.ts'
import type { Db } from '../db/client.ts'
import { errors, eventPayloads, events, organizations, projects, users } from '../db/schema.ts'
import { decodeEventPayload, type StoredEventPayload } from '../events/event-payload.ts'
import { resolveStoredFrames } from '../events/stored-frames.ts'

/** Lines of code context kept on each side of a frame's line (spec section 8). */
export const CODE_CONTEXT_LINES = 3

/** The error's changeable state when its trigger fired (queue-deliveries.ts records it). */
export interface ErrorSnapshot {
  status: string
  assignedCollaboratorId: string | null
  severityOverride: string | null
  linkedIssueUrl: string | null
}

/**
 * trigger.snoozeRule. `hours` (Errata's addition) is the window of an "n occurrences in m hours"
 * rule: ruleValue occurrences within `hours` hours (1 for per hour).
 */
export interface SnoozeRule {
  type: 'occurrences' | 'occurrence_per_hour' | 'occurs_after'
  ruleValue: number
  hours?: number
}

/** The release member's build details (spec section 6), as a build report gave them. */
export interface ReleaseBuild {
  versionCode?: string
  bundleVersion?: string
  releasedBy?: string
  sourceControl?: { provider: string; revision: string; revisionUrl: string }
  metadata?: Record<string, string>
}

/** What fired, as the trigger stage or an operation recorded it in webhook_deliveries.details. */
export interface DeliveryDetails {
  message: string
  stateChange?: StateChange
  rate?: number
  snoozeRule?: SnoozeRule
  comment?: { id: string; message: string; createdAt: string }
  /** The collaborator who caused it (comment, manual state change). */
  userId?: string
  release?: { version: string; releaseStage: string; releaseTime: string } & ReleaseBuild
  /** The error as it was when the trigger fired; absent in deliveries queued before it was recorded. */
  error?: ErrorSnapshot
  /** Sent with "Send test" (the delivery log marks it). */
  test?: boolean
}

type Json = Record<string, unknown>

/** Sets `key` only when the value is known. */
function put(target: Json, key: string, value: unknown): void {
  if (value !== undefined && value !== null && value !== '') target[key] = value
}

const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined
const asNumber = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
const asBoolean = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined)
const asObject = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined

const APP_STRINGS = ['id', 'version', 'versionCode', 'bundleVersion', 'codeBundleId', 'buildUUID', 'type'] as const
const APP_NUMBERS = ['duration', 'durationInForeground'] as const
const APP_BOOLEANS = ['inForeground', 'isLaunching'] as const

function appMember(payload: StoredEventPayload): Json {
  const app = asObject(payload.app) ?? {}
  const out: Json = {}
  for (const key of APP_STRINGS) put(out, key, asString(app[key]))
  if (!out.version) put(out, 'version', payload.app_version ?? undefined)
  const dsyms = Array.isArray(app.dsymUUIDs) ? app.dsymUUIDs.map(asString).filter((s): s is string => s !== undefined) : undefined
  if (dsyms && dsyms.length > 0) out.dsymUUIDs = dsyms
  for (const key of APP_NUMBERS) put(out, key, asNumber(app[key]))
  for (const key of APP_BOOLEANS) put(out, key, asBoolean(app[key]))
  out.releaseStage = payload.release_stage ?? asString(app.releaseStage) ?? 'production'
  return out
}

const DEVICE_STRINGS = ['hostname', 'id', 'manufacturer', 'model', 'modelNumber', 'osName', 'osVersion', 'browserName', 'browserVersion', 'orientation', 'locale', 'time', 'timezone'] as const
const DEVICE_NUMBERS = ['freeMemory', 'totalMemory', 'freeDisk'] as const

function deviceMember(payload: StoredEventPayload): Json | undefined {
  const device = asObject(payload.device) ?? {}
  const out: Json = {}
  for (const key of DEVICE_STRINGS) put(out, key, asString(device[key]))
  for (const key of DEVICE_NUMBERS) put(out, key, asNumber(device[key]))
  put(out, 'jailbroken', asBoolean(device.jailbroken))
  put(out, 'charging', asBoolean(device.charging))
  const battery = asNumber(device.batteryLevel)
  // 0 to 1 (spec section 8); notifiers that send a percentage are scaled.
  if (battery !== undefined) out.batteryLevel = battery > 1 ? Math.min(1, battery / 100) : Math.max(0, battery)
  return Object.keys(out).length > 0 ? out : undefined
}

/** The frame's code context, cut to CODE_CONTEXT_LINES on each side of its line. */
function codeAround(frame: StackFrame): Record<string, string> | undefined {
  if (!frame.code) return undefined
  const out: Record<string, string> = {}
  for (const [line, text] of Object.entries(frame.code)) {
    const n = Number(line)
    if (frame.line === null || (Number.isFinite(n) && Math.abs(n - frame.line) <= CODE_CONTEXT_LINES)) out[line] = text
  }
  return Object.keys(out).length > 0 ? out : undefined
}

function frameMember(frame: StackFrame): Json {
  const out: Json = { inProject: frame.in_project }
  put(out, 'lineNumber', frame.line === null ? undefined : String(frame.line))
  put(out, 'columnNumber', frame.column === null ? undefined : String(frame.column))
  put(out, 'file', frame.file)
  put(out, 'method', frame.method)
  put(out, 'code', codeAround(frame))
  return out
}

function exceptionMember(exception: EventException): Json {
  const out: Json = {}
  put(out, 'errorClass', exception.class)
  put(out, 'message', exception.message)
  put(out, 'type', exception.type)
  out.stacktrace = exception.stacktrace.map(frameMember)
  if (exception.registers && exception.registers.length > 0) {
    out.registers = exception.registers.map((r) => {
      const registers: Json = {}
      put(registers, 'frameIndex', r.frame_index)
      registers.registerValues = r.values.map((v) => ({ registerName: v.name, registerValue: v.value }))
      return registers
    })
  }
  return out
}

export interface PayloadUrls {
  web(path: string): string
}

interface ErrorRowForPayload {
  id: string
  projectId: string
  errorClass: string
  message: string
  context: string | null
  severity: string
  firstSeen: Date
  lastEventId: string | null
}

/** The error member: the event that caused the trigger (or the error's newest one), in the error's terms. */
async function errorMember(db: Db, urls: PayloadUrls, error: ErrorRowForPayload, eventId: string | null, snapshot: ErrorSnapshot): Promise<Json> {
  const id = eventId ?? error.lastEventId
  const eventRows = id
    ? await db
        .select({ event: events, payload: eventPayloads.payload })
        .from(events)
        .leftJoin(eventPayloads, eq(eventPayloads.eventId, events.id))
        .where(eq(events.id, id))
        .limit(1)
    : []
  const row = eventRows[0]
  const payload: StoredEventPayload | null = row?.payload ? decodeEventPayload(row.payload) : null
  if (payload) await resolveStoredFrames(db, error.projectId, [payload])
  const outer = payload?.exceptions[0]
  const out: Json = {
    id: row?.event.id ?? error.lastEventId ?? error.id,
    errorId: error.id,
    exceptionClass: outer?.class ?? row?.event.errorClass ?? error.errorClass,
    message: outer?.message ?? row?.event.message ?? error.message,
    context: payload?.context ?? row?.event.context ?? error.context ?? '',
    firstReceived: error.firstSeen.toISOString(),
    receivedAt: (row?.event.receivedAt ?? error.firstSeen).toISOString(),
  }
  put(out, 'requestUrl', asString(payload?.request.url) ?? row?.event.requestUrl ?? undefined)
  if (snapshot.assignedCollaboratorId) {
    out.assignedUserId = snapshot.assignedCollaboratorId
    const [assignee] = await db.select({ email: users.email }).from(users).where(eq(users.id, snapshot.assignedCollaboratorId)).limit(1)
    put(out, 'assignedUserEmail', assignee?.email)
  }
  out.url = row
    ? urls.web(`/projects/${error.projectId}/errors/${error.id}/events/${row.event.id}`)
    : urls.web(`/projects/${error.projectId}/errors/${error.id}`)
  out.severity = snapshot.severityOverride ?? payload?.severity ?? error.severity
  out.status = snapshot.status
  put(out, 'unhandled', payload?.unhandled ?? row?.event.unhandled)
  if (snapshot.linkedIssueUrl) {
    // The link link_issue set (docs/errors-workflow.md); createdIssue, deprecated, stays beside it (spec section 9).
    const issue = { type: 'url', url: snapshot.linkedIssueUrl }
    out.linkedIssues = [issue]
    out.createdIssue = issue
  }
  if (payload) {
    const user: Json = {}
    put(user, 'id', payload.user.id)
    put(user, 'name', payload.user.name)
    put(user, 'email', payload.user.email)
    if (Object.keys(user).length > 0) out.user = user
  }
  out.app = payload ? appMember(payload) : { releaseStage: row?.event.releaseStage ?? 'production' }
  if (payload) {
    put(out, 'device', deviceMember(payload))
    put(out, 'metaData', metaDataMember(payload))
    if (payload.breadcrumbs.length > 0) {
      // Newest to oldest (spec); notifiers send them oldest first.
      out.breadcrumbs = [...payload.breadcrumbs].reverse().map((b) => {
        const crumb: Json = { name: b.name, type: b.type }
        put(crumb, 'timestamp', b.timestamp)
        if (Object.keys(b.meta_data).length > 0) crumb.metaData = b.meta_data
        return crumb
      })
    }
    if (payload.feature_flags.length > 0) {
      out.featureFlags = payload.feature_flags.map((f) => {
        const flag: Json = { featureFlag: f.name }
        put(flag, 'variant', f.variant)
        return flag
      })
    }
    if (payload.exceptions.length > 0) {
      out.exceptions = payload.exceptions.map(exceptionMember)
      // Deprecated, kept alongside (spec section 9): the outermost exception's frames.
      out.stackTrace = (out.exceptions as Json[])[0]!.stacktrace
    }
  }
  return out
}

/**
 * metaData (spec section 6): the event's user, app and device objects beside the custom tabs; a
 * custom tab of the same name adds its keys to them.
 */
function metaDataMember(payload: StoredEventPayload): Json | undefined {
  const user: Json = {}
  put(user, 'id', payload.user.id)
  put(user, 'name', payload.user.name)
  put(user, 'email', payload.user.email)
  const out: Json = {}
  for (const [name, event] of [['user', user], ['app', asObject(payload.app) ?? {}], ['device', asObject(payload.device) ?? {}]] as const) {
    const merged = { ...event, ...asObject(payload.meta_data[name]) }
    if (Object.keys(merged).length > 0) out[name] = merged
  }
  for (const [name, tab] of Object.entries(payload.meta_data)) if (!(name in out)) out[name] = tab
  return Object.keys(out).length > 0 ? out : undefined
}

export interface DeliveryForPayload {
  projectId: string
  trigger: WebhookTrigger
  errorId: string | null
  eventId: string | null
  details: DeliveryDetails
}

/** The whole document for one delivery. */
export async function buildPayload(db: Db, urls: PayloadUrls, delivery: DeliveryForPayload): Promise<Json> {
  const [owner] = await db
    .select({ project: projects, organization: organizations })
    .from(projects)
    .innerJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(eq(projects.id, delivery.projectId))
    .limit(1)
  if (!owner) throw new Error(`project ${delivery.projectId} no longer exists`)
  const { details } = delivery
  const trigger: Json = { type: delivery.trigger, message: details.message }
  put(trigger, 'snoozeRule', details.snoozeRule)
  put(trigger, 'rate', details.rate)
  put(trigger, 'stateChange', details.stateChange)
  const document: Json = {
    account: { id: owner.organization.id, name: owner.organization.name, url: urls.web(`/organizations/${owner.organization.id}`) },
    project: { id: owner.project.id, name: owner.project.name, url: urls.web(`/projects/${owner.project.id}/errors`) },
    trigger,
  }
  if (details.comment) document.comment = details.comment
  if (details.userId) {
    const [user] = await db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, details.userId)).limit(1)
    if (user) document.user = user
  }
  if (delivery.errorId) {
    const [error] = await db.select().from(errors).where(eq(errors.id, delivery.errorId)).limit(1)
    if (error) document.error = await errorMember(db, urls, error, delivery.eventId, details.error ?? error)
  }
  if (details.release) {
    const { version, releaseStage, releaseTime, ...build } = details.release
    document.release = {
      id: `${releaseStage}@${version}`,
      version,
      releaseStage,
      url: urls.web(`/projects/${owner.project.id}/errors?${new URLSearchParams({ 'filters[version.seen_in][][type]': 'eq', 'filters[version.seen_in][][value]': version })}`),
      releaseTime,
    }
    for (const key of ['versionCode', 'bundleVersion', 'releasedBy', 'sourceControl', 'metadata'] as const) put(document.release as Json, key, build[key])
  }
  return document
}

/** The trigger message of a test delivery (POST /webhooks/{id}/test), which has no error member. */
export const TEST_MESSAGE = 'This is a test notification from Errata.'
