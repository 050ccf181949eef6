import { asc, eq, sql } from 'drizzle-orm'
import type { CreateOrganization, Organization, UpdateOrganization } from '../../contract/organizations.ts'
import type { Scope } from '../context.ts'
import { withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { lockProjects } from '../db/project-lock.ts'
import { collaborators, organizations, projects } from '../db/schema.ts'
import { forgetProjectApiKeys } from '../ingest/accept/project-keys.ts'
import { NotFoundError } from '../failures.ts'
import { insertWithFreeSlug } from '../http/slug.ts'

type OrganizationRow = typeof organizations.$inferSelect

export function toOrganization(row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

export async function listUserOrganizations(db: Db, userId: string): Promise<Organization[]> {
  const rows = await db
    .select({ organization: organizations })
    .from(organizations)
    .innerJoin(collaborators, eq(collaborators.organizationId, organizations.id))
    .where(eq(collaborators.userId, userId))
    .orderBy(asc(organizations.createdAt), asc(organizations.id))
  return rows.map((row) => toOrganization(row.organization))
}

/** Creates an organization; its creator becomes its first admin collaborator. */
export async function createOrganization(db: Db, userId: string, input: CreateOrganization): Promise<Organization> {
  return withTransaction(db, async (tx) => {
    const row = await insertWithFreeSlug(input.name, async (slug) => {
      const [inserted] = await tx
        .insert(organizations)
        .values({ id: newId(), name: input.name, slug })
        .onConflictDoNothing({ target: organizations.slug })
        .returning()
      return inserted
    })
    await tx.insert(collaborators).values({ organizationId: row.id, userId, isAdmin: true })
    return toOrganization(row)
  })
}

export async function getOrganization(db: Db, { organizationId }: Scope): Promise<Organization> {
  const rows = await db.select().from(organizations).where(eq(organizations.id, organizationId)).limit(1)
  if (!rows[0]) throw new NotFoundError('Organization')
  return toOrganization(rows[0])
}

/** For admins (the route says so). */
export async function updateOrganization(db: Db, { organizationId }: Scope, input: UpdateOrganization): Promise<Organization> {
  const [row] = await db
    .update(organizations)
    .set({ name: input.name, updatedAt: sql`now()` })
    .where(eq(organizations.id, organizationId))
    .returning()
  if (!row) throw new NotFoundError('Organization')
  return toOrganization(row)
}

/** Deletes the organization with its projects, errors and events (admins only: the route says so). */
export async function deleteOrganization(db: Db, { organizationId }: Scope): Promise<void> {
  const deleted = await withTransaction(db, async (tx) => {
    // Its projects' write locks first, as for deleting one project: after any indexing in progress.
    const owned = await tx.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, organizationId))
    await lockProjects(tx, owned.map((row) => row.id))
    await tx.delete(organizations).where(eq(organizations.id, organizationId))
    return owned.map((row) => row.id)
  })
  // Their notifiers are refused from the next request on, as for deleting one project.
  for (const projectId of deleted) forgetProjectApiKeys(db, projectId)
}
