import { and, asc, eq, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { CreateProject, Project, UpdateProject } from '../../contract/projects.ts'
import { collaboratorSeesProject } from '../auth/access.ts'
import type { ProjectScope } from '../auth/scope.ts'
import type { Scope } from '../context.ts'
import type { Db } from '../db/client.ts'
import { newApiKey, newId } from '../db/ids.ts'
import { collaborators, invitations, projects } from '../db/schema.ts'
import { NotFoundError } from '../failures.ts'
import { insertWithFreeSlug } from '../http/slug.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { writingProject } from '../db/project-lock.ts'
import { forgetProjectApiKeys } from '../ingest/accept/project-keys.ts'

type ProjectRow = typeof projects.$inferSelect

// Counts come from indexed subqueries in the same statement: one query per list, no N+1.
// The outer columns are written qualified on purpose: drizzle renders ${projects.id} in a
// single-table select as a bare "id", which inside the subquery would mean e.id.
// The one visibility rule (auth/access.ts), over a collaborators alias the subqueries name.
const c = alias(collaborators, 'c')
const projectColumns = {
  project: projects,
  openErrorCount: sql<number>`(SELECT count(*) FROM errors e WHERE e.project_id = projects.id AND e.status = 'open' AND e.merged_into_id IS NULL)`.mapWith(Number),
  // Those who can see the project: admins, unrestricted members and members listing it.
  collaboratorsCount: sql<number>`(SELECT count(*) FROM ${collaborators} c WHERE ${c.organizationId} = projects.organization_id
    AND ${collaboratorSeesProject(c, sql`projects.id`)})`.mapWith(Number),
}

/** What a project's JSON needs besides its row: where its URLs point, and the server's default retention. */
export interface ProjectView {
  urls: UrlBuilder
  defaultRetentionDays: number
}

function toProject(
  { urls, defaultRetentionDays }: ProjectView,
  row: { project: ProjectRow; openErrorCount: number; collaboratorsCount: number },
): Project {
  const p = row.project
  return {
    id: p.id,
    organization_id: p.organizationId,
    name: p.name,
    slug: p.slug,
    type: p.type,
    api_key: p.apiKey,
    collaborators_count: row.collaboratorsCount,
    open_error_count: row.openErrorCount,
    release_stages: p.releaseStages,
    event_retention_days: p.eventRetentionDays,
    effective_event_retention_days: p.eventRetentionDays ?? defaultRetentionDays,
    default_event_retention_days: defaultRetentionDays,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    html_url: urls.web(`/projects/${p.id}/errors`),
  }
}

export async function listProjects(db: Db, view: ProjectView, { userId, organizationId }: Scope): Promise<Project[]> {
  // A restricted collaborator lists only their projects.
  const rows = await db
    .select(projectColumns)
    .from(projects)
    .where(
      and(
        eq(projects.organizationId, organizationId),
        sql`EXISTS (SELECT 1 FROM ${collaborators} c WHERE ${c.organizationId} = projects.organization_id
          AND ${c.userId} = ${userId} AND ${collaboratorSeesProject(c, sql`projects.id`)})`,
      ),
    )
    .orderBy(asc(projects.createdAt), asc(projects.id))
  return rows.map((row) => toProject(view, row))
}

async function loadProject(db: Db, view: ProjectView, projectId: string): Promise<Project> {
  const rows = await db.select(projectColumns).from(projects).where(eq(projects.id, projectId)).limit(1)
  if (!rows[0]) throw new NotFoundError('Project')
  return toProject(view, rows[0])
}

export async function getProject(db: Db, view: ProjectView, { projectId }: ProjectScope): Promise<Project> {
  return loadProject(db, view, projectId)
}

/** Creates a project with a new 32-hex-character API key (admins only: the route says so). */
export async function createProject(db: Db, view: ProjectView, { organizationId }: Scope, input: CreateProject): Promise<Project> {
  const id = await insertWithFreeSlug(input.name, async (slug) => {
    const [inserted] = await db
      .insert(projects)
      .values({ id: newId(), organizationId, name: input.name, type: input.type, slug, apiKey: newApiKey() })
      .onConflictDoNothing({ target: [projects.organizationId, projects.slug] })
      .returning({ id: projects.id })
    return inserted?.id
  })
  return loadProject(db, view, id)
}

/** For admins (the route says so), as the other changes below. */
export async function updateProject(db: Db, view: ProjectView, { projectId }: ProjectScope, input: UpdateProject): Promise<Project> {
  await db
    .update(projects)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.type && { type: input.type }),
      ...(input.event_retention_days !== undefined && { eventRetentionDays: input.event_retention_days }),
      updatedAt: sql`now()`,
    })
    .where(eq(projects.id, projectId))
  return loadProject(db, view, projectId)
}

/** Deletes the project with all its errors and events (admins only). */
export async function deleteProject(db: Db, { projectId, organizationId }: ProjectScope): Promise<void> {
  // After any indexing of its events in progress; later indexing finds it gone.
  await writingProject(db, projectId, async (tx) => {
    await tx.delete(projects).where(eq(projects.id, projectId))
    // Members and invitations restricted to chosen projects no longer list it (and a client may
    // send such a list back as it read it).
    for (const table of [collaborators, invitations]) {
      await tx
        .update(table)
        .set({ projectIds: sql`array_remove(${table.projectIds}, ${projectId})` })
        .where(and(eq(table.organizationId, organizationId), sql`${table.projectIds} @> ARRAY[${projectId}]::text[]`))
    }
  })
  // Its notifiers are refused from the next request on, not only once the cached key expires.
  forgetProjectApiKeys(db, projectId)
}

/**
 * Gives the project a new API key (admins only), as Bugsnag's DELETE /projects/{id}/api_key
 * does: notifiers still sending the old one are refused from then on (at once in this process,
 * within 30 s in others sharing the database: server/ingest/accept/project-keys.ts).
 */
export async function regenerateProjectApiKey(db: Db, view: ProjectView, { projectId }: ProjectScope): Promise<Project> {
  await db.update(projects).set({ apiKey: newApiKey(), updatedAt: sql`now()` }).where(eq(projects.id, projectId))
  forgetProjectApiKeys(db, projectId)
  return loadProject(db, view, projectId)
}
