import { and, asc, eq, exists, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Collaborator } from '../../contract/collaborators.ts'
import { requireOrganizationMember } from '../auth/access.ts'
import type { Db } from '../db/client.ts'
import { collaborators, projects, users } from '../db/schema.ts'
import { NotFoundError } from '../http/errors.ts'

const columns = { id: users.id, name: users.name, email: users.email, isAdmin: collaborators.isAdmin }

export function toCollaborator(row: { id: string; name: string; email: string; isAdmin: boolean }): Collaborator {
  return { id: row.id, name: row.name, email: row.email, is_admin: row.isAdmin }
}

// People read the list by name; email then id break ties so the order is stable.
const byName = [asc(sql`lower(${users.name})`), asc(sql`lower(${users.email})`), asc(users.id)]

const me = alias(collaborators, 'me')

/** The caller is a collaborator of the organization whose id `organizationId` evaluates to. */
function callerIsMember(db: Db, userId: string, organizationId: typeof collaborators.organizationId): SQL {
  return exists(
    db
      .select({ one: sql`1` })
      .from(me)
      .where(and(eq(me.organizationId, organizationId), eq(me.userId, userId))),
  )
}

/**
 * Everyone in the organization, in one query. The membership check rides in the same
 * statement: a member always sees at least themselves, so no rows means 404.
 */
export async function listOrganizationCollaborators(
  db: Db,
  userId: string,
  organizationId: string,
): Promise<Collaborator[]> {
  const rows = await db
    .select(columns)
    .from(collaborators)
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(and(eq(collaborators.organizationId, organizationId), callerIsMember(db, userId, collaborators.organizationId)))
    .orderBy(...byName)
  if (rows.length === 0) throw new NotFoundError('Organization')
  return rows.map(toCollaborator)
}

/** Everyone who can see the project: the collaborators of its organization. */
export async function listProjectCollaborators(db: Db, userId: string, projectId: string): Promise<Collaborator[]> {
  const rows = await db
    .select(columns)
    .from(projects)
    .innerJoin(collaborators, eq(collaborators.organizationId, projects.organizationId))
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(and(eq(projects.id, projectId), callerIsMember(db, userId, collaborators.organizationId)))
    .orderBy(...byName)
  if (rows.length === 0) throw new NotFoundError('Project')
  return rows.map(toCollaborator)
}

export async function getOrganizationCollaborator(
  db: Db,
  userId: string,
  organizationId: string,
  collaboratorId: string,
): Promise<Collaborator> {
  await requireOrganizationMember(db, userId, organizationId)
  const rows = await db
    .select(columns)
    .from(collaborators)
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(and(eq(collaborators.organizationId, organizationId), eq(collaborators.userId, collaboratorId)))
    .limit(1)
  if (!rows[0]) throw new NotFoundError('Collaborator')
  return toCollaborator(rows[0])
}
