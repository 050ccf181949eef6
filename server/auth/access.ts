import { and, eq, sql, type SQL } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Db } from '../db/client.ts'
import { collaborators, projects } from '../db/schema.ts'
import { ForbiddenError, NotFoundError } from '../failures.ts'

export interface Membership {
  organizationId: string
  isAdmin: boolean
  /** The projects a member is restricted to; null for admins and unrestricted members. */
  projectIds: string[] | null
}

/** The caller's membership of an organization; 404 when not a member, so existence is not revealed. */
export async function requireOrganizationMember(db: Db, userId: string, organizationId: string): Promise<Membership> {
  const rows = await db
    .select({ isAdmin: collaborators.isAdmin, projectIds: collaborators.projectIds })
    .from(collaborators)
    .where(and(eq(collaborators.organizationId, organizationId), eq(collaborators.userId, userId)))
    .limit(1)
  const row = rows[0]
  if (!row) throw new NotFoundError('Organization')
  return { organizationId, isAdmin: row.isAdmin, projectIds: row.isAdmin ? null : row.projectIds }
}

export async function requireOrganizationAdmin(db: Db, userId: string, organizationId: string): Promise<Membership> {
  const membership = await requireOrganizationMember(db, userId, organizationId)
  if (!membership.isAdmin) throw new ForbiddenError('only organization admins may do this')
  return membership
}

/**
 * True when the collaborator row `c` may see the project whose id `projectId` evaluates to:
 * admins and unrestricted members (project_ids NULL) see every project of the organization,
 * restricted members only the listed ones. `c` is the collaborators table or an alias of it.
 */
export function collaboratorSeesProject(c: { isAdmin: AnyPgColumn; projectIds: AnyPgColumn }, projectId: AnyPgColumn | SQL): SQL {
  return sql`(${c.isAdmin} OR ${c.projectIds} IS NULL OR ${projectId} = ANY(${c.projectIds}))`
}

export interface ProjectAccess {
  projectId: string
  organizationId: string
  isAdmin: boolean
}

/**
 * The caller's access to a project through its organization, in one query; 404 when none,
 * including for a project outside a restricted collaborator's project_ids.
 */
export async function requireProjectAccess(db: Db, userId: string, projectId: string): Promise<ProjectAccess> {
  const rows = await db
    .select({ organizationId: projects.organizationId, isAdmin: collaborators.isAdmin })
    .from(projects)
    .innerJoin(
      collaborators,
      and(
        eq(collaborators.organizationId, projects.organizationId),
        eq(collaborators.userId, userId),
        collaboratorSeesProject(collaborators, projects.id),
      ),
    )
    .where(eq(projects.id, projectId))
    .limit(1)
  const row = rows[0]
  if (!row) throw new NotFoundError('Project')
  return { projectId, organizationId: row.organizationId, isAdmin: row.isAdmin }
}
