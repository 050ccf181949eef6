import { createHash } from 'node:crypto'
import type { ErrorStatus } from '../../contract/errors.ts'
import type { Organization } from '../../contract/organizations.ts'
import type { Project, ProjectType } from '../../contract/projects.ts'
import { withTransaction, type Database } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { collaborators, errors, eventPayloads, events } from '../db/schema.ts'
import { encodeEventPayload, type StoredEventPayload } from '../events/event-payload.ts'
import type { TestContext, TestUser } from './test-app.ts'

export interface SeededProject {
  user: TestUser
  organization: Organization
  project: Project
}

/**
 * An organization and a project in it, created through the API by `user` (its admin):
 * an existing test user, or a new one created under the given name.
 */
export async function seedProject(
  ctx: TestContext,
  names: { user?: string | TestUser; organization?: string; project?: string; type?: ProjectType } = {},
): Promise<SeededProject> {
  const user = typeof names.user === 'object' ? names.user : await ctx.createUser(names.user ?? 'Admin')
  const orgRes = await ctx.request('/api/user/organizations', {
    method: 'POST',
    token: user.token,
    json: { name: names.organization ?? 'Seed Org' },
  })
  if (orgRes.status !== 201) throw new Error(`seedProject: creating the organization answered ${orgRes.status}`)
  const organization = (await orgRes.json()) as Organization
  const projectRes = await ctx.request(`/api/organizations/${organization.id}/projects`, {
    method: 'POST',
    token: user.token,
    json: { name: names.project ?? 'Seed Project', type: names.type ?? 'node' },
  })
  if (projectRes.status !== 201) throw new Error(`seedProject: creating the project answered ${projectRes.status}`)
  return { user, organization, project: (await projectRes.json()) as Project }
}

/** A new user who joins `organizationId` as a member (not an admin), of every project. */
export async function seedMember(ctx: TestContext, organizationId: string, name: string): Promise<TestUser> {
  const member = await ctx.createUser(name)
  await ctx.deps.database.db.insert(collaborators).values({ organizationId, userId: member.id, isAdmin: false })
  return member
}

type ErrorInsert = typeof errors.$inferInsert

export interface SeedErrorsOptions {
  /** Events (with stored payloads) per error; 0 seeds error rows only. Default 0. */
  eventsPerError?: number
  /** Store an event_payloads row per event (needed by event detail). Default true. */
  payloads?: boolean
  /** last_seen of the newest error; each further group is one minute older. Default: now. */
  now?: Date
  /**
   * This many consecutive errors share every sort value (last_seen, first_seen, events,
   * users), so keyset pagination has to break ties by id. Default 1 (no ties).
   */
  tieGroup?: number
  /** Rows per multi-row INSERT. Default 1000 (well under the 65535-parameter limit). */
  batchSize?: number
  /** Per-error column overrides (status, grouping_hash, …). */
  overrides?: (index: number) => Partial<ErrorInsert>
}

export interface SeededError {
  id: string
  status: ErrorStatus
  firstSeen: Date
  lastSeen: Date
  eventsCount: number
  usersCount: number
  lastEventId: string | null
  eventIds: string[]
}

const MINUTE = 60_000

function samplePayload(index: number, errorClass: string, message: string): StoredEventPayload {
  const frames = Array.from({ length: 8 }, (_, f) => ({
    line: 10 + f * 7,
    column: 5 + f,
    file: f < 3 ? `src/services/module-${index % 50}.js` : `node_modules/library-${f}/lib/index.js`,
    method: f < 3 ? `handler${f}` : `internal${f}`,
    in_project: f < 3,
    code: f === 0 ? { '9': 'const value = input.value', '10': 'throw new Error(message)', '11': '}' } : null,
  }))
  return {
    severity: 'error',
    unhandled: true,
    severity_reason: 'unhandledException',
    context: `GET /items/${index % 100}`,
    grouping_hash: null,
    app_version: `1.${index % 5}.0`,
    release_stage: index % 3 === 0 ? 'staging' : 'production',
    os_version: '6.1.0',
    user_id: `user-${index % 200}`,
    exceptions: [{ class: errorClass, message, type: 'nodejs', stacktrace: frames }],
    meta_data: { request: { path: `/items/${index % 100}`, httpMethod: 'GET' }, custom: { attempt: index % 4, tags: ['a', 'b'] } },
    user: { id: `user-${index % 200}`, email: `user${index % 200}@example.com`, name: `User ${index % 200}` },
    app: { version: `1.${index % 5}.0`, releaseStage: 'production', type: 'node' },
    device: { hostname: 'web-1', osName: 'linux', osVersion: '6.1.0', runtimeVersions: { node: '20.20.2' } },
    request: { url: `https://app.example.com/items/${index % 100}`, httpMethod: 'GET', headers: { 'user-agent': 'curl/8' } },
    breadcrumbs: Array.from({ length: 5 }, (_, b) => ({
      timestamp: new Date(0).toISOString(),
      name: `step ${b}`,
      type: b % 2 === 0 ? 'log' : 'navigation',
      meta_data: { detail: `breadcrumb ${b} of event ${index}` },
    })),
    feature_flags: [{ name: 'new-checkout', variant: index % 2 === 0 ? 'on' : null }],
    threads: [],
    session: null,
    notifier: { name: 'Bugsnag Node', version: '9.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
  }
}

function chunks<T>(rows: T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/**
 * Bulk-inserts `n` errors into a project (and optionally their events and payloads)
 * with multi-row INSERTs in one transaction, for list tests and benchmarks. Sort
 * values are deterministic and spread so every sort gives a different order.
 */
export async function seedErrors(
  database: Database,
  projectId: string,
  n: number,
  options: SeedErrorsOptions = {},
): Promise<SeededError[]> {
  const eventsPerError = options.eventsPerError ?? 0
  const withPayloads = options.payloads ?? true
  const tieGroup = Math.max(1, options.tieGroup ?? 1)
  const batchSize = options.batchSize ?? 1000
  const now = (options.now ?? new Date()).getTime()
  const groups = Math.ceil(n / tieGroup)
  const firstSeenBase = now - groups * MINUTE

  const errorRows: ErrorInsert[] = []
  const eventRows: (typeof events.$inferInsert)[] = []
  const payloadRows: (typeof eventPayloads.$inferInsert)[] = []
  const seeded: SeededError[] = []

  for (let i = 0; i < n; i++) {
    const g = Math.floor(i / tieGroup)
    const lastSeen = new Date(now - g * MINUTE)
    // A permutation of the groups, so first_seen order differs from last_seen order.
    const firstSeen = new Date(firstSeenBase - ((g * 7919) % 10007) * MINUTE)
    const id = newId(lastSeen.getTime())
    const errorClass = `SeedError${i % 13}`
    const message = `seeded failure number ${i}`
    const override = options.overrides?.(i) ?? {}
    const eventIds: string[] = []
    const payload = eventsPerError > 0 && withPayloads ? encodeEventPayload(samplePayload(i, errorClass, message)) : null
    for (let e = 0; e < eventsPerError; e++) {
      // Oldest first, the last one exactly at last_seen.
      const span = lastSeen.getTime() - firstSeen.getTime()
      const receivedAt = new Date(
        eventsPerError === 1 ? lastSeen.getTime() : firstSeen.getTime() + Math.floor((span * e) / (eventsPerError - 1)),
      )
      const eventId = newId(receivedAt.getTime())
      eventIds.push(eventId)
      eventRows.push({
        id: eventId,
        projectId,
        errorId: id,
        receivedAt,
        severity: 'error',
        unhandled: true,
        errorClass,
        message,
        context: `GET /items/${i % 100}`,
        releaseStage: i % 3 === 0 ? 'staging' : 'production',
        appVersion: `1.${i % 5}.0`,
        osName: 'linux',
        osVersion: '6.1.0',
        browserName: null,
        deviceModel: null,
        userId: `user-${(i + e) % 200}`,
        userEmail: `user${(i + e) % 200}@example.com`,
        userName: `User ${(i + e) % 200}`,
        requestUrl: `https://app.example.com/items/${i % 100}`,
      })
      if (payload) payloadRows.push({ eventId, payload })
    }
    const row: ErrorInsert = {
      id,
      projectId,
      groupingHash: createHash('sha1').update(id).digest('hex'),
      groupingReason: 'in_project_frame',
      errorClass,
      message,
      context: `GET /items/${i % 100}`,
      severity: 'error',
      unhandled: true,
      status: 'open',
      firstSeen,
      lastSeen,
      eventsCount: eventsPerError > 0 ? eventsPerError : ((g * 31) % 97) + 1,
      usersCount: (g * 17) % 53,
      releaseStages: [i % 3 === 0 ? 'staging' : 'production'],
      appVersions: [`1.${i % 5}.0`],
      lastEventId: eventIds[eventIds.length - 1] ?? null,
      ...override,
    }
    errorRows.push(row)
    seeded.push({
      id: row.id,
      status: row.status as ErrorStatus,
      firstSeen: row.firstSeen,
      lastSeen: row.lastSeen,
      eventsCount: row.eventsCount ?? 0,
      usersCount: row.usersCount ?? 0,
      lastEventId: row.lastEventId ?? null,
      eventIds,
    })
  }

  await withTransaction(database.db, async (tx) => {
    for (const batch of chunks(errorRows, batchSize)) await tx.insert(errors).values(batch)
    for (const batch of chunks(eventRows, batchSize)) await tx.insert(events).values(batch)
    for (const batch of chunks(payloadRows, batchSize)) await tx.insert(eventPayloads).values(batch)
  })
  return seeded
}
