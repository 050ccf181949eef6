// Who a legacy request may see among users (the spec's section 5, rule 4: "only users in the same
// authentication scope"). A user credential's scope is the organizations its user belongs to; an
// organization token's, its organization. A user outside the scope is 404, as v2 answers for
// what the caller may not see.
import { sql } from 'drizzle-orm'
import type { Project } from '../../contract/projects.ts'
import type { Principal } from '../context.ts'
import { queryRows, type Db } from '../db/client.ts'
import { collaborators, users } from '../db/schema.ts'
import { NotFoundError } from '../failures.ts'
import { listProjects, type ProjectView } from '../projects/projects.service.ts'

/** A user as the legacy user shows them: admin in one of the scope's organizations, and the first of those they share. */
export interface ScopedUser {
  id: string
  name: string
  email: string
  is_admin: boolean
  organizationId: string | null
  /** The scope's organizations the user belongs to, with their role in each. */
  memberships: { organizationId: string; isAdmin: boolean }[]
}

/** The organizations in the principal's scope, as SQL for an IN list. */
function scopeOrganizations(principal: Principal) {
  return principal.kind === 'organization'
    ? sql`SELECT ${principal.organizationId}::text`
    : sql`SELECT ${collaborators.organizationId} FROM ${collaborators} WHERE ${collaborators.userId} = ${principal.user.id}`
}

/** The user `userId` when they are in the principal's scope; 404 otherwise. */
export async function userInScope(db: Db, principal: Principal, userId: string): Promise<ScopedUser> {
  const rows = await queryRows<{ id: string; name: string; email: string; organization_id: string; is_admin: boolean }>(
    db,
    sql`SELECT u.id, u.name, u.email, c.organization_id, c.is_admin
      FROM ${users} u JOIN ${collaborators} c ON c.user_id = u.id
      WHERE u.id = ${userId} AND c.organization_id IN (${scopeOrganizations(principal)})
      ORDER BY c.created_at, c.organization_id`,
  )
  const [first] = rows
  if (!first) throw new NotFoundError('User')
  return {
    id: first.id,
    name: first.name,
    email: first.email,
    is_admin: rows.some((row) => row.is_admin),
    organizationId: first.organization_id,
    memberships: rows.map((row) => ({ organizationId: row.organization_id, isAdmin: row.is_admin })),
  }
}

/** The signed-in user (GET /user), admin when they are one in any of their organizations. */
export async function currentUser(db: Db, userId: string): Promise<ScopedUser> {
  const rows = await queryRows<{ id: string; name: string; email: string; organization_id: string | null; is_admin: boolean | null }>(
    db,
    sql`SELECT u.id, u.name, u.email, c.organization_id, c.is_admin
      FROM ${users} u LEFT JOIN ${collaborators} c ON c.user_id = u.id
      WHERE u.id = ${userId} ORDER BY c.created_at, c.organization_id`,
  )
  const [first] = rows
  if (!first) throw new NotFoundError('User')
  const memberships = rows.flatMap((row) => (row.organization_id ? [{ organizationId: row.organization_id, isAdmin: Boolean(row.is_admin) }] : []))
  return { id: first.id, name: first.name, email: first.email, is_admin: memberships.some((m) => m.isAdmin), organizationId: first.organization_id, memberships }
}

/**
 * The projects user `userId` can see in the principal's scope, that the caller can see too
 * (v2's listProjects, once for them and once for the caller, per organization they share).
 */
export async function projectsOfUser(db: Db, view: ProjectView, principal: Principal, userId: string): Promise<Project[]> {
  const target = await userInScope(db, principal, userId)
  const lists = await Promise.all(
    target.memberships.map(async ({ organizationId, isAdmin }) => {
      const theirs = await listProjects(db, view, { userId: target.id, organizationId, projectId: null, isAdmin })
      if (principal.kind === 'organization' || principal.user.id === target.id) return theirs
      const mine = new Set((await listProjects(db, view, { userId: principal.user.id, organizationId, projectId: null, isAdmin: false })).map((p) => p.id))
      return theirs.filter((project) => mine.has(project.id))
    }),
  )
  return lists.flat()
}
