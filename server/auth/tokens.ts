import { createHash, randomBytes } from 'node:crypto'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { AuthUser, Principal } from '../context.ts'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { authTokens, collaborators, organizationTokens, users } from '../db/schema.ts'
import { parseUserAgent } from '../ingest/process/user-agent.ts'

/** A new personal auth token: 40 hex characters (160 random bits). Shown once, stored hashed. */
export function generateToken(): string {
  return randomBytes(20).toString('hex')
}

/** Tokens carry 160 random bits, so a fast hash is enough (no salt or stretching needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/**
 * The label of a dashboard sign-in's token, naming the browser and system it was made from so
 * a list of sessions can be told apart: "Dashboard sign-in · Chrome on Linux". The names come
 * from the parser's fixed lists, never from the header's text, so the label stays short (and
 * free of anything a client chose to send) whatever the User-Agent holds.
 */
export function signInTokenDescription(userAgent: string | null | undefined): string {
  const { browserName, osName } = parseUserAgent(userAgent ?? '')
  const where = browserName && osName ? `${browserName} on ${osName}` : (browserName ?? osName)
  return where ? `Dashboard sign-in · ${where}` : 'Dashboard sign-in'
}

export async function createToken(
  db: Db,
  userId: string,
  description: string,
  token = generateToken(),
  kind: 'personal' | 'sign_in' = 'personal',
): Promise<{ id: string; token: string }> {
  const id = newId()
  await db.insert(authTokens).values({ id, userId, tokenHash: hashToken(token), description, kind })
  return { id, token }
}

/** The token a dashboard sign-in (or an accepted invitation) hands the browser: it expires when idle. */
export function createSignInToken(db: Db, userId: string, userAgent: string | null | undefined): Promise<{ id: string; token: string }> {
  return createToken(db, userId, signInTokenDescription(userAgent), undefined, 'sign_in')
}

/**
 * How long a sign-in token keeps working without being used. A browser left signed in stays
 * so while it is used; the tokens of browsers long gone stop working by themselves.
 * Personal tokens (scripts, integrations) work until revoked.
 */
export const SIGN_IN_TOKEN_IDLE_DAYS = 30

/** Not revoked, and not a sign-in token idle for longer than SIGN_IN_TOKEN_IDLE_DAYS. */
export const tokenWorks = sql`${authTokens.revokedAt} IS NULL AND (${authTokens.kind} <> 'sign_in'
  OR coalesce(${authTokens.lastUsedAt}, ${authTokens.createdAt}) > now() - make_interval(days => ${SIGN_IN_TOKEN_IDLE_DAYS}))`

/**
 * The user a token belongs to, or null for an unknown, revoked or expired token. The same statement
 * records last_used_at, at most once a minute per token, so busy clients do not write on
 * every request.
 */
export async function findUserByToken(db: Db, token: string): Promise<AuthUser | null> {
  const rows = await queryRows<AuthUser>(
    db,
    sql`WITH found AS (
        SELECT u.id, u.email, u.name, ${authTokens.id} AS token_id, ${authTokens.lastUsedAt} AS last_used_at
        FROM ${authTokens} JOIN ${users} u ON u.id = ${authTokens.userId}
        WHERE ${authTokens.tokenHash} = ${hashToken(token)} AND ${tokenWorks}
      ), touched AS (
        UPDATE ${authTokens} SET last_used_at = now()
        WHERE id IN (SELECT token_id FROM found WHERE last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
      )
      SELECT id, email, name, token_id AS "tokenId" FROM found LIMIT 1`,
  )
  return rows[0] ?? null
}

export async function revokeToken(db: Db, userId: string, tokenId: string): Promise<boolean> {
  const rows = await db
    .update(authTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(authTokens.id, tokenId), eq(authTokens.userId, userId), isNull(authTokens.revokedAt)))
    .returning({ id: authTokens.id })
  return rows.length > 0
}

/**
 * Organization API tokens start with this, so a token names the table it is looked up in, and
 * secret scanners can tell them apart: `errata_org_` then 40 hex characters (160 random bits).
 */
export const ORGANIZATION_TOKEN_PREFIX = 'errata_org_'

export function generateOrganizationToken(): string {
  return ORGANIZATION_TOKEN_PREFIX + generateToken()
}

/**
 * An organization token works while not revoked and while the admin who made it is still an
 * admin of its organization (what it changes is recorded as theirs, so it never outlives their
 * right to make those changes).
 */
export const organizationTokenWorks = sql`${organizationTokens.revokedAt} IS NULL AND EXISTS (
  SELECT 1 FROM ${collaborators} WHERE ${collaborators.organizationId} = ${organizationTokens.organizationId}
    AND ${collaborators.userId} = ${organizationTokens.createdBy} AND ${collaborators.isAdmin})`

/** The organization principal of an organization token, or null; records last_used_at as findUserByToken does. */
export async function findOrganizationByToken(db: Db, token: string): Promise<Principal | null> {
  const rows = await queryRows<{ id: string; organization_id: string; created_by: string }>(
    db,
    sql`WITH found AS (
        SELECT ${organizationTokens.id} AS id, ${organizationTokens.organizationId} AS organization_id,
          ${organizationTokens.createdBy} AS created_by, ${organizationTokens.lastUsedAt} AS last_used_at
        FROM ${organizationTokens}
        WHERE ${organizationTokens.tokenHash} = ${hashToken(token)} AND ${organizationTokenWorks}
      ), touched AS (
        UPDATE ${organizationTokens} SET last_used_at = now()
        WHERE id IN (SELECT id FROM found WHERE last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
      )
      SELECT id, organization_id, created_by FROM found LIMIT 1`,
  )
  const row = rows[0]
  return row ? { kind: 'organization', organizationId: row.organization_id, tokenId: row.id, actorId: row.created_by } : null
}
