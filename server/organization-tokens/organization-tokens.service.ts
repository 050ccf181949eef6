// Organization API tokens: credentials of an organization (not of a person) for the legacy v1
// API, made and revoked by its admins. The secret is shown once and stored as its SHA-256 hash
// (server/auth/tokens.ts reads them); revoked ones leave the list.
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { CreatedOrganizationToken, OrganizationToken } from '../../contract/organization-tokens.ts'
import { generateOrganizationToken, hashToken, organizationTokenWorks } from '../auth/tokens.ts'
import type { Scope } from '../context.ts'
import type { Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { organizationTokens, users } from '../db/schema.ts'
import { NotFoundError } from '../failures.ts'

const columns = {
  id: organizationTokens.id,
  name: organizationTokens.name,
  createdAt: organizationTokens.createdAt,
  lastUsedAt: organizationTokens.lastUsedAt,
  createdById: organizationTokens.createdBy,
  createdByName: users.name,
  active: sql<boolean>`${organizationTokenWorks}`.mapWith(Boolean),
}

type Row = { id: string; name: string; createdAt: Date; lastUsedAt: Date | null; createdById: string; createdByName: string; active: boolean }

function toOrganizationToken(row: Row): OrganizationToken {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    created_by: { id: row.createdById, name: row.createdByName },
    active: row.active,
  }
}

const listed = (organizationId: string) => and(eq(organizationTokens.organizationId, organizationId), isNull(organizationTokens.revokedAt))

/** The organization's tokens not revoked, newest first (admins only: the route says so). */
export async function listOrganizationTokens(db: Db, { organizationId }: Scope): Promise<OrganizationToken[]> {
  const rows = await db
    .select(columns)
    .from(organizationTokens)
    .innerJoin(users, eq(users.id, organizationTokens.createdBy))
    .where(listed(organizationId))
    .orderBy(desc(organizationTokens.createdAt), desc(organizationTokens.id))
  return rows.map(toOrganizationToken)
}

/** A new token made by the caller; the answer is the only time its secret is shown. */
export async function createOrganizationToken(db: Db, { organizationId, userId }: Scope, name: string): Promise<CreatedOrganizationToken> {
  const id = newId()
  const token = generateOrganizationToken()
  await db.insert(organizationTokens).values({ id, organizationId, tokenHash: hashToken(token), name, createdBy: userId })
  const [row] = await db.select(columns).from(organizationTokens).innerJoin(users, eq(users.id, organizationTokens.createdBy)).where(eq(organizationTokens.id, id))
  if (!row) throw new NotFoundError('Token')
  return { ...toOrganizationToken(row), token }
}

/** Revokes one of the organization's tokens: it stops working at once. 404 for another organization's or one revoked already. */
export async function revokeOrganizationToken(db: Db, { organizationId }: Scope, tokenId: string): Promise<void> {
  const rows = await db
    .update(organizationTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(organizationTokens.id, tokenId), listed(organizationId)))
    .returning({ id: organizationTokens.id })
  if (rows.length === 0) throw new NotFoundError('Token')
}
