import { and, eq, gt, sql } from 'drizzle-orm'
import type { AcceptInvitation, Collaborator, Invitation, UserInvitation } from '../../contract/collaborators.ts'
import type { Organization } from '../../contract/organizations.ts'
import type { LoginResponse } from '../../contract/users.ts'
import { hashPassword } from '../auth/passwords.ts'
import { createSignInToken, generateToken, hashToken } from '../auth/tokens.ts'
import { withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { collaborators, invitations, organizations, users } from '../db/schema.ts'
import { ConflictError, Failure, NotFoundError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { toOrganization } from '../organizations/organizations.service.ts'
import { toCurrentUser } from '../users/users.service.ts'

/** How long an accept link works. */
export const INVITATION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000

type InvitationRow = typeof invitations.$inferSelect

/** A pending invitation in the collaborators list: no name until the invitee picks one. */
export function invitationToCollaborator(row: InvitationRow): Collaborator {
  return {
    id: row.id,
    name: '',
    email: row.email,
    is_admin: row.isAdmin,
    project_ids: row.projectIds,
    pending_invitation: true,
    created_at: row.createdAt.toISOString(),
  }
}

/** Only invitations that can still be accepted. */
export const invitationIsOpen = gt(invitations.expiresAt, sql`now()`)

/**
 * Creates the pending invitation for `email`, or replaces the organization's pending one
 * for that email (a new token and a new 14-day window; the old link stops working).
 * Returns the row and the accept link, the only time the token is seen.
 */
export async function createInvitation(
  db: Db,
  urls: UrlBuilder,
  input: { organizationId: string; email: string; isAdmin: boolean; projectIds: string[] | null; invitedBy: string },
): Promise<{ invitation: InvitationRow; url: string }> {
  const token = generateToken()
  const createdAt = new Date()
  const invitation: InvitationRow = {
    id: newId(createdAt.getTime()),
    organizationId: input.organizationId,
    email: input.email,
    isAdmin: input.isAdmin,
    projectIds: input.projectIds,
    tokenHash: hashToken(token),
    invitedBy: input.invitedBy,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + INVITATION_LIFETIME_MS),
  }
  // The unique index is on lower(email), an expression drizzle's onConflict target cannot name.
  await db.execute(sql`
    INSERT INTO ${invitations} (id, organization_id, email, is_admin, project_ids, token_hash, invited_by, created_at, expires_at)
    VALUES (${invitation.id}, ${invitation.organizationId}, ${invitation.email}, ${invitation.isAdmin},
      ${sql.param(invitation.projectIds)}::text[], ${invitation.tokenHash}, ${invitation.invitedBy},
      ${createdAt.toISOString()}::timestamptz, ${invitation.expiresAt.toISOString()}::timestamptz)
    ON CONFLICT (organization_id, lower(email)) DO UPDATE SET
      id = EXCLUDED.id, email = EXCLUDED.email, is_admin = EXCLUDED.is_admin, project_ids = EXCLUDED.project_ids,
      token_hash = EXCLUDED.token_hash, invited_by = EXCLUDED.invited_by,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`)
  return { invitation, url: urls.web(`/invitations/${token}`) }
}

// Unknown, expired and already used links answer alike: the link is simply no good.
const notFound = () =>
  new Failure('not found', ['Invitation not found: the link is wrong, has expired or was already used'])

async function findOpenInvitation(db: Db, token: string) {
  const rows = await db
    .select({ invitation: invitations, organizationName: organizations.name })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .where(and(eq(invitations.tokenHash, hashToken(token)), invitationIsOpen))
    .limit(1)
  return rows[0] ?? null
}

/** What the accept page shows (no auth: the token is the credential). */
export async function getInvitation(db: Db, token: string): Promise<Invitation> {
  const row = await findOpenInvitation(db, token)
  if (!row) throw notFound()
  return {
    organization_name: row.organizationName,
    email: row.invitation.email,
    is_admin: row.invitation.isAdmin,
    expires_at: row.invitation.expiresAt.toISOString(),
  }
}

/**
 * Creates the invitee's account and membership, uses up the invitation and signs them in
 * (a new token, like POST /auth/login).
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  input: AcceptInvitation,
  userAgent?: string,
): Promise<LoginResponse> {
  return joinWithNewAccount(db, token, input, async (tx, user) => {
    const { token: authToken } = await createSignInToken(tx, user.id, userAgent)
    return { token: authToken, user: toCurrentUser(user) }
  })
}

/**
 * Creates the invitee's account (name and password) and membership and uses up the invitation,
 * then runs `then` in the same transaction: acceptInvitation signs them in, the legacy API's
 * POST /accounts/{id}/users with a password does not. 409 when the email has an account already.
 */
export async function joinWithNewAccount<T>(
  db: Db,
  token: string,
  input: AcceptInvitation,
  then: (tx: Db, user: typeof users.$inferSelect) => Promise<T>,
): Promise<T> {
  // Checked before hashing, so a bad link costs no scrypt work.
  const found = await findOpenInvitation(db, token)
  if (!found) throw notFound()
  const passwordHash = await hashPassword(input.password)
  return withTransaction(db, async (tx) => {
    // Locking the invitation makes a double submit accept once; the second finds no row.
    const [invitation] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.tokenHash, hashToken(token)), invitationIsOpen))
      .for('update')
    if (!invitation) throw notFound()
    const [user] = await tx
      .insert(users)
      .values({ id: newId(), email: invitation.email, name: input.name, passwordHash })
      .onConflictDoNothing()
      .returning()
    if (!user) {
      throw new ConflictError(
        `email: an account for ${invitation.email} already exists; sign in with it and accept the invitation to ${found.organizationName} on your organizations page`,
      )
    }
    await tx.insert(collaborators).values({
      organizationId: invitation.organizationId,
      userId: user.id,
      isAdmin: invitation.isAdmin,
      projectIds: invitation.isAdmin ? null : invitation.projectIds,
    })
    await tx.delete(invitations).where(eq(invitations.id, invitation.id))
    return then(tx, user)
  })
}

/** Open invitations addressed to `userId`'s email. */
const toUser = (userId: string) =>
  and(invitationIsOpen, sql`lower(${invitations.email}) = (SELECT lower(${users.email}) FROM ${users} WHERE ${users.id} = ${userId})`)

/** The open invitations to the signed-in user's email, newest first. */
export async function listUserInvitations(db: Db, userId: string): Promise<UserInvitation[]> {
  const rows = await db
    .select({ invitation: invitations, organizationName: organizations.name, invitedBy: users.name })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(toUser(userId))
    .orderBy(sql`${invitations.createdAt} DESC`, invitations.id)
  return rows.map(({ invitation, organizationName, invitedBy }) => ({
    id: invitation.id,
    organization_id: invitation.organizationId,
    organization_name: organizationName,
    is_admin: invitation.isAdmin,
    invited_by: invitedBy ?? '',
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
  }))
}

/**
 * The signed-in user joins the organization of an invitation to their email, with its role and
 * projects, and the invitation is used up. 404 for any other invitation (someone else's, expired,
 * withdrawn or used): its existence is not revealed.
 */
export async function acceptUserInvitation(db: Db, userId: string, invitationId: string): Promise<Organization> {
  return withTransaction(db, async (tx) => {
    // Locking the invitation makes a double submit accept once; the second finds no row.
    const [invitation] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.id, invitationId), toUser(userId)))
      .for('update')
    if (!invitation) throw new NotFoundError('Invitation')
    // Already a member (added meanwhile): the invitation is simply used up.
    await tx
      .insert(collaborators)
      .values({ organizationId: invitation.organizationId, userId, isAdmin: invitation.isAdmin, projectIds: invitation.isAdmin ? null : invitation.projectIds })
      .onConflictDoNothing()
    await tx.delete(invitations).where(eq(invitations.id, invitation.id))
    const [organization] = await tx.select().from(organizations).where(eq(organizations.id, invitation.organizationId))
    if (!organization) throw new NotFoundError('Invitation')
    return toOrganization(organization)
  })
}

/** The signed-in user declines an invitation to their email: it is withdrawn (its link stops working). */
export async function declineUserInvitation(db: Db, userId: string, invitationId: string): Promise<void> {
  const deleted = await db
    .delete(invitations)
    .where(and(eq(invitations.id, invitationId), toUser(userId)))
    .returning({ id: invitations.id })
  if (deleted.length === 0) throw new NotFoundError('Invitation')
}
