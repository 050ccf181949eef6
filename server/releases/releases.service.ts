// Releases (docs/releases.md): the releases table (created by the indexer, session ingestion and
// POST /build) and each release's figures, read from the tables that already count them:
// session_counts and crashed_sessions (sessions), errors.first_* (errors introduced), the
// per-error app.version rollup rows (errors seen) and error_status_changes (regressions).
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import {
  type BuildReport,
  type ListReleaseGroupsQuery,
  type ListReleasesQuery,
  type Release,
  type ReleaseGroup,
  type SourceControl,
} from '../../contract/releases.ts'
import { crashFreeRate } from '../../contract/stability.ts'
import { compareVersions } from '../../contract/versions.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { releases } from '../db/schema.ts'
import { decodeCursor, encodeCursor, NOT_ISSUED_CURSOR, openCursor, sealCursor } from '../http/cursor.ts'
import { NotFoundError, ValidationError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'
import type { ReleaseBuild } from '../webhooks/payload.ts'
import { queueReleaseTriggers } from '../webhooks/triggers/release-triggers.ts'
import { DEFAULT_RELEASE_STAGE } from '../ingest/payload/event-row.ts'

type ReleaseRow = typeof releases.$inferSelect

interface Figures {
  total_sessions_count: number
  sessions_count_in_last_24h: number
  unhandled_sessions_count: number
  crash_free_rate: number | null
  errors_introduced_count: number
  errors_seen_count: number
  regressions_count: number
}

const NO_FIGURES: Figures = {
  total_sessions_count: 0,
  sessions_count_in_last_24h: 0,
  unhandled_sessions_count: 0,
  crash_free_rate: null,
  errors_introduced_count: 0,
  errors_seen_count: 0,
  regressions_count: 0,
}

const releaseKey = (stage: string, version: string) => `${stage}\u0000${version}`

/** The revision's page on the known hosts; the repository as sent (https or git@ form). */
export function sourceControlOf(value: unknown): SourceControl | null {
  if (!value || typeof value !== 'object') return null
  const { provider, repository, revision } = value as Record<string, unknown>
  if (typeof repository !== 'string' || typeof revision !== 'string') return null
  const web = repository
    .replace(/^git@([^:]+):/, 'https://$1/')
    .replace(/^ssh:\/\/(?:[^@/]+@)?/, 'https://')
    .replace(/\.git$/, '')
  const host = /^https:\/\/(?:[^@/]+@)?([^/]+)\/(.+)$/.exec(web)
  let revisionUrl: string | null = null
  if (host && /^[0-9A-Za-z._-]+$/.test(revision)) {
    const base = `https://${host[1]}/${host[2]}`
    if (host[1] === 'github.com') revisionUrl = `${base}/commit/${revision}`
    else if (host[1] === 'gitlab.com') revisionUrl = `${base}/-/commit/${revision}`
    else if (host[1] === 'bitbucket.org') revisionUrl = `${base}/commits/${revision}`
  }
  return { provider: typeof provider === 'string' ? provider : null, repository, revision, revision_url: revisionUrl }
}

/**
 * The figures of some releases of one project, each kind in one grouped query over the
 * page's (release stage, app version) pairs.
 */
async function figuresOf(db: Db, projectId: string, rows: readonly ReleaseRow[], now: Date): Promise<Map<string, Figures>> {
  const figures = new Map<string, Figures>(rows.map((r) => [releaseKey(r.releaseStage, r.appVersion), { ...NO_FIGURES }]))
  if (rows.length === 0) return figures
  const pairs = sql`(VALUES ${sql.join(
    rows.map((r) => sql`(${r.releaseStage}, ${r.appVersion})`),
    sql`, `,
  )}) AS k(release_stage, app_version)`
  const dayAgo = new Date(now.getTime() - 86_400_000).toISOString()
  type Counted = { release_stage: string; app_version: string; n: number | string; recent?: number | string }
  const [sessions, crashed, introduced, seen, regressions] = await Promise.all([
    queryRows<Counted>(
      db,
      sql`SELECT k.release_stage, k.app_version, sum(s.sessions) AS n,
            coalesce(sum(s.sessions) FILTER (WHERE s.minute >= ${dayAgo}::timestamptz), 0) AS recent
          FROM ${pairs} JOIN session_counts s
            ON s.project_id = ${projectId} AND s.release_stage = k.release_stage AND s.app_version = k.app_version
          GROUP BY k.release_stage, k.app_version`,
    ),
    queryRows<Counted>(
      db,
      sql`SELECT k.release_stage, k.app_version, count(*) AS n
          FROM ${pairs} JOIN crashed_sessions c
            ON c.project_id = ${projectId} AND c.release_stage = k.release_stage AND c.app_version = k.app_version
          GROUP BY k.release_stage, k.app_version`,
    ),
    queryRows<Counted>(
      db,
      sql`SELECT k.release_stage, k.app_version, count(*) AS n
          FROM ${pairs} JOIN errors e ON e.project_id = ${projectId}
            AND e.first_app_version = k.app_version AND e.first_release_stage = k.release_stage
            AND e.merged_into_id IS NULL
          GROUP BY k.release_stage, k.app_version`,
    ),
    // Errors with events of the version (the per-error app.version rollup, folded about once a
    // second) that were seen in the release stage.
    queryRows<Counted>(
      db,
      sql`SELECT k.release_stage, k.app_version, count(*) AS n
          FROM ${pairs} JOIN pivot_counts p ON p.project_id = ${projectId} AND p.field = 'app.version'
            AND p.value = k.app_version AND p.value <> '' AND p.error_id <> ''
          JOIN errors e ON e.id = p.error_id AND k.release_stage = ANY(e.release_stages)
          GROUP BY k.release_stage, k.app_version`,
    ),
    queryRows<Counted>(
      db,
      sql`SELECT k.release_stage, k.app_version, count(DISTINCT c.error_id) AS n
          FROM ${pairs} JOIN error_status_changes c ON c.reason = 'event' AND c.from_status = 'fixed'
            AND c.release_stage = k.release_stage AND c.app_version = k.app_version
          JOIN errors e ON e.id = c.error_id AND e.project_id = ${projectId}
          GROUP BY k.release_stage, k.app_version`,
    ),
  ])
  const apply = (counted: Counted[], set: (f: Figures, row: Counted) => void) => {
    for (const row of counted) {
      const f = figures.get(releaseKey(row.release_stage, row.app_version))
      if (f) set(f, row)
    }
  }
  apply(sessions, (f, row) => {
    f.total_sessions_count = Number(row.n)
    f.sessions_count_in_last_24h = Number(row.recent ?? 0)
  })
  apply(crashed, (f, row) => (f.unhandled_sessions_count = Number(row.n)))
  apply(introduced, (f, row) => (f.errors_introduced_count = Number(row.n)))
  apply(seen, (f, row) => (f.errors_seen_count = Number(row.n)))
  apply(regressions, (f, row) => (f.regressions_count = Number(row.n)))
  for (const f of figures.values()) f.crash_free_rate = crashFreeRate(f.total_sessions_count, f.unhandled_sessions_count)
  return figures
}

function toRelease(urls: UrlBuilder, row: ReleaseRow, figures: Figures): Release {
  return {
    id: row.id,
    project_id: row.projectId,
    release_group_id: row.id,
    app_version: row.appVersion,
    app_version_code: row.appVersionCode,
    app_bundle_version: row.appBundleVersion,
    release_stage: row.releaseStage,
    release_time: row.releaseTime.toISOString(),
    release_source: row.releaseSource as Release['release_source'],
    builder_name: row.builderName,
    build_tool: row.buildTool,
    source_control: sourceControlOf(row.sourceControl),
    metadata: (row.metadata as Record<string, string> | null) ?? null,
    ...figures,
    url: urls.api(`/projects/${row.projectId}/releases/${row.id}`),
    html_url: urls.web(`/projects/${row.projectId}/releases/${row.id}`),
  }
}

function toReleaseGroup(urls: UrlBuilder, row: ReleaseRow, figures: Figures): ReleaseGroup {
  return {
    id: row.id,
    project_id: row.projectId,
    release_stage_name: row.releaseStage,
    app_version: row.appVersion,
    first_released_at: row.releaseTime.toISOString(),
    first_release_id: row.id,
    releases_count: 1,
    visible: true,
    builder_name: row.builderName,
    source_control: sourceControlOf(row.sourceControl),
    ...figures,
    url: urls.api(`/release_groups/${row.id}`),
  }
}

export interface ReleasePage<T> {
  items: T[]
  nextCursor: string | null
  totalCount: number
}

/** A keyset page of a project's releases by (release_time, id), optionally in one release stage. */
async function releasePage(
  db: Db,
  projectId: string,
  options: { stage?: string; direction: 'asc' | 'desc'; perPage: number; cursor?: string; list: string; recentOnly?: Date },
): Promise<{ rows: ReleaseRow[]; nextCursor: string | null; totalCount: number }> {
  let after: SQL | undefined
  if (options.cursor) {
    const cursor = decodeCursor(options.cursor, options.list)
    const at = typeof cursor.v === 'string' ? new Date(cursor.v) : null
    if (!at || Number.isNaN(at.getTime()) || at.toISOString() !== cursor.v) throw new ValidationError(NOT_ISSUED_CURSOR)
    after =
      options.direction === 'desc'
        ? sql`(${releases.releaseTime}, ${releases.id}) < (${cursor.v}::timestamptz, ${cursor.id})`
        : sql`(${releases.releaseTime}, ${releases.id}) > (${cursor.v}::timestamptz, ${cursor.id})`
  }
  const where = and(
    eq(releases.projectId, projectId),
    options.stage !== undefined ? eq(releases.releaseStage, options.stage) : undefined,
    options.recentOnly
      ? sql`EXISTS (SELECT 1 FROM session_counts s WHERE s.project_id = ${releases.projectId}
          AND s.release_stage = ${releases.releaseStage} AND s.app_version = ${releases.appVersion}
          AND s.minute >= ${options.recentOnly.toISOString()}::timestamptz AND s.sessions > 0)`
      : undefined,
  )
  const order = options.direction === 'desc' ? [desc(releases.releaseTime), desc(releases.id)] : [asc(releases.releaseTime), asc(releases.id)]
  const [rows, total] = await Promise.all([
    db.select().from(releases).where(and(where, after)).orderBy(...order).limit(options.perPage + 1),
    db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(releases)
      .where(where),
  ])
  const page = rows.slice(0, options.perPage)
  const last = page[page.length - 1]
  return {
    rows: page,
    nextCursor: rows.length > options.perPage && last ? encodeCursor({ v: last.releaseTime.toISOString(), id: last.id }, options.list) : null,
    totalCount: total[0]?.n ?? 0,
  }
}

const codeUnitOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * A page of a project's releases by release stage (A to Z), then version (newest first for
 * `desc`), then id. Versions do not sort in SQL, so the keys of the project's releases (one row
 * per version and stage, a few hundred at most in practice) are sorted here and the page's rows
 * read by id; the cursor holds the last key, so a release added meanwhile moves no other.
 */
async function versionPage(
  db: Db,
  projectId: string,
  options: { stage?: string; direction: 'asc' | 'desc'; perPage: number; cursor?: string; list: string },
): Promise<{ rows: ReleaseRow[]; nextCursor: string | null; totalCount: number }> {
  type Key = { id: string; stage: string; version: string }
  const sign = options.direction === 'desc' ? -1 : 1
  const order = (a: Key, b: Key) =>
    codeUnitOrder(a.stage, b.stage) || sign * compareVersions(a.version, b.version) || codeUnitOrder(a.id, b.id)
  const keys: Key[] = await db
    .select({ id: releases.id, stage: releases.releaseStage, version: releases.appVersion })
    .from(releases)
    .where(and(eq(releases.projectId, projectId), options.stage !== undefined ? eq(releases.releaseStage, options.stage) : undefined))
  keys.sort(order)
  let start = 0
  if (options.cursor) {
    const [stage, version, id] = openCursor(options.cursor, options.list)
    if (typeof stage !== 'string' || typeof version !== 'string' || typeof id !== 'string') throw new ValidationError(NOT_ISSUED_CURSOR)
    const after = keys.findIndex((key) => order(key, { id, stage, version }) > 0)
    start = after === -1 ? keys.length : after
  }
  const pageKeys = keys.slice(start, start + options.perPage)
  const byId = new Map(
    pageKeys.length === 0
      ? []
      : (await db.select().from(releases).where(inArray(releases.id, pageKeys.map((key) => key.id)))).map((row) => [row.id, row]),
  )
  const last = pageKeys[pageKeys.length - 1]
  return {
    rows: pageKeys.flatMap((key) => byId.get(key.id) ?? []),
    nextCursor: start + options.perPage < keys.length && last ? sealCursor(options.list, [last.stage, last.version, last.id]) : null,
    totalCount: keys.length,
  }
}

/** GET /projects/{id}/releases. */
export async function listReleases(
  db: Db,
  urls: UrlBuilder,
  { projectId }: ProjectScope,
  query: ListReleasesQuery,
  now = new Date(),
): Promise<ReleasePage<Release>> {
  const byVersion = query.sort === 'version'
  const page = await (byVersion ? versionPage : releasePage)(db, projectId, {
    stage: query.release_stage,
    direction: query.direction,
    perPage: query.per_page,
    cursor: query.cursor,
    list: `releases|${projectId}|${byVersion ? 'version|' : ''}${query.direction}`,
  })
  const figures = await figuresOf(db, projectId, page.rows, now)
  return {
    items: page.rows.map((row) => toRelease(urls, row, figures.get(releaseKey(row.releaseStage, row.appVersion))!)),
    nextCursor: page.nextCursor,
    totalCount: page.totalCount,
  }
}

/** GET /projects/{id}/release_groups: newest first. */
export async function listReleaseGroups(
  db: Db,
  urls: UrlBuilder,
  { projectId }: ProjectScope,
  query: ListReleaseGroupsQuery,
  now = new Date(),
): Promise<ReleasePage<ReleaseGroup>> {
  const page = await releasePage(db, projectId, {
    stage: query.release_stage_name,
    direction: 'desc',
    perPage: query.per_page,
    cursor: query.cursor,
    list: `release_groups|${projectId}`,
    recentOnly: query.top_only ? new Date(now.getTime() - 86_400_000) : undefined,
  })
  const figures = await figuresOf(db, projectId, page.rows, now)
  return {
    items: page.rows.map((row) => toReleaseGroup(urls, row, figures.get(releaseKey(row.releaseStage, row.appVersion))!)),
    nextCursor: page.nextCursor,
    totalCount: page.totalCount,
  }
}

/** A release of the scope's project; 404 otherwise. */
async function releaseOf(db: Db, { projectId }: ProjectScope, releaseId: string): Promise<ReleaseRow> {
  const rows = await db
    .select({ release: releases })
    .from(releases)
    .where(and(eq(releases.id, releaseId), eq(releases.projectId, projectId)))
    .limit(1)
  if (!rows[0]) throw new NotFoundError('Release')
  return rows[0].release
}

/** GET /projects/{id}/releases/{release_id} (and a release group's releases: the scope is the group's project). */
export async function getRelease(db: Db, urls: UrlBuilder, scope: ProjectScope, releaseId: string, now = new Date()): Promise<Release> {
  const row = await releaseOf(db, scope, releaseId)
  const figures = await figuresOf(db, row.projectId, [row], now)
  return toRelease(urls, row, figures.get(releaseKey(row.releaseStage, row.appVersion))!)
}

/** GET /release_groups/{id}. */
export async function getReleaseGroup(db: Db, urls: UrlBuilder, scope: ProjectScope, releaseGroupId: string, now = new Date()): Promise<ReleaseGroup> {
  const row = await releaseOf(db, scope, releaseGroupId)
  const figures = await figuresOf(db, row.projectId, [row], now)
  return toReleaseGroup(urls, row, figures.get(releaseKey(row.releaseStage, row.appVersion))!)
}

/**
 * POST /build: creates the release (and its release notifications) or fills in its build details (a later report of the same
 * version and stage replaces them). The release time is the earliest of first sight and build.
 */
export async function recordBuild(db: Db, projectId: string, report: BuildReport, now = new Date()): Promise<void> {
  const releaseStage = report.releaseStage ?? DEFAULT_RELEASE_STAGE
  await withTransaction(db, async (tx) => {
    // xmax is 0 on a row this statement inserted, not on one it updated: whether the build created the release.
    const [row] = await queryRows<{ created: boolean; release_time: string | Date }>(
      tx,
      sql`
    INSERT INTO releases AS r (id, project_id, release_stage, app_version, release_time, release_source, builder_name,
      build_tool, app_version_code, app_bundle_version, source_control, metadata, build_reported_at)
    VALUES (${newId()}, ${projectId}, ${releaseStage}, ${report.appVersion}, ${now.toISOString()}::timestamptz, 'build_api',
      ${report.builderName}, ${report.buildTool}, ${report.appVersionCode}, ${report.appBundleVersion},
      ${report.sourceControl ? JSON.stringify(report.sourceControl) : null}::jsonb,
      ${report.metadata ? JSON.stringify(report.metadata) : null}::jsonb, ${now.toISOString()}::timestamptz)
    ON CONFLICT (project_id, release_stage, app_version) DO UPDATE SET
      release_time = least(r.release_time, excluded.release_time),
      builder_name = excluded.builder_name,
      build_tool = excluded.build_tool,
      app_version_code = excluded.app_version_code,
      app_bundle_version = excluded.app_bundle_version,
      source_control = excluded.source_control,
      metadata = excluded.metadata,
      build_reported_at = excluded.build_reported_at
    RETURNING (r.xmax = 0) AS created, r.release_time`,
    )
    if (row?.created) {
      await queueReleaseTriggers(
        tx,
        [{ projectId, releaseStage, appVersion: report.appVersion, releaseTime: new Date(row.release_time), build: releaseBuildOf(report) }],
        now,
      )
    }
  })
}

/**
 * The build details of a report as the release webhook document names them (spec section 6).
 * sourceControl needs its revision's page: sent for the hosts sourceControlOf knows, with the
 * provider as reported, else named after the host.
 */
function releaseBuildOf(report: BuildReport): ReleaseBuild {
  const build: ReleaseBuild = {}
  if (report.appVersionCode) build.versionCode = report.appVersionCode
  if (report.appBundleVersion) build.bundleVersion = report.appBundleVersion
  if (report.builderName) build.releasedBy = report.builderName
  const source = sourceControlOf(report.sourceControl)
  if (source?.revision_url) {
    const host = new URL(source.revision_url).hostname
    build.sourceControl = { provider: source.provider ?? host.replace(/\.(com|org)$/, ''), revision: source.revision, revisionUrl: source.revision_url }
  }
  if (report.metadata && Object.keys(report.metadata).length > 0) build.metadata = report.metadata
  return build
}
