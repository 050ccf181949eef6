import { and, asc, eq, exists, inArray, notInArray, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type {
  Collaborator,
  InviteCollaborator,
  InvitedCollaborator,
  UpdateCollaborator,
} from '../../contract/collaborators.ts'
import { collaboratorSeesProject, requireOrganizationAdmin, requireOrganizationMember } from '../auth/access.ts'
import { withTransaction, type Db } from '../db/client.ts'
import { collaborators, errors, invitations, organizations, projects, users } from '../db/schema.ts'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { createInvitation, invitationIsOpen, invitationToCollaborator } from '../invitations/invitations.service.ts'
import { lockProjects } from '../db/project-lock.ts'
import { enqueueMail } from '../mail/mail.jobs.ts'
import type { MailDeps } from '../mail/mail-deps.ts'
import { renderEmail } from '../mail/render.ts'

const columns = {
  id: users.id,
  name: users.name,
  email: users.email,
  isAdmin: collaborators.isAdmin,
  projectIds: collaborators.projectIds,
  createdAt: collaborators.createdAt,
}

type MemberRow = { id: string; name: string; email: string; isAdmin: boolean; projectIds: string[] | null; createdAt: Date }

export function toCollaborator(row: MemberRow): Collaborator {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    is_admin: row.isAdmin,
    project_ids: row.isAdmin ? null : row.projectIds,
    pending_invitation: false,
    created_at: row.createdAt.toISOString(),
  }
}

/**
 * A collaborator as the caller may see them: a restricted member sees other people's project_ids
 * only for projects they can see themselves, since any other project behaves as if it did not exist.
 */
function seenBy(caller: Pick<MemberRow, 'isAdmin' | 'projectIds'>) {
  const visible = caller.isAdmin || caller.projectIds === null ? null : new Set(caller.projectIds)
  return (collaborator: Collaborator): Collaborator =>
    visible === null || collaborator.project_ids === null
      ? collaborator
      : { ...collaborator, project_ids: collaborator.project_ids.filter((id) => visible.has(id)) }
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

/** The caller may see the project (member of its organization, and the project within their project_ids). */
function callerSeesProject(db: Db, userId: string): SQL {
  return exists(
    db
      .select({ one: sql`1` })
      .from(me)
      .where(
        and(
          eq(me.organizationId, projects.organizationId),
          eq(me.userId, userId),
          collaboratorSeesProject(me, projects.id),
        ),
      ),
  )
}

/**
 * Everyone in the organization: members by name, then pending invitations by email.
 * The membership check rides in the members query: a member always sees at least
 * themselves, so no rows means 404.
 */
export async function listOrganizationCollaborators(
  db: Db,
  userId: string,
  organizationId: string,
): Promise<Collaborator[]> {
  const members = await db
    .select(columns)
    .from(collaborators)
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(and(eq(collaborators.organizationId, organizationId), callerIsMember(db, userId, collaborators.organizationId)))
    .orderBy(...byName)
  const caller = members.find((member) => member.id === userId)
  if (!caller) throw new NotFoundError('Organization')
  const pending = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), invitationIsOpen))
    .orderBy(asc(sql`lower(${invitations.email})`), asc(invitations.id))
  return [...members.map(toCollaborator), ...pending.map(invitationToCollaborator)].map(seenBy(caller))
}

/** Everyone who can see the project: admins, unrestricted members and members listing it. */
export async function listProjectCollaborators(db: Db, userId: string, projectId: string): Promise<Collaborator[]> {
  const rows = await db
    .select(columns)
    .from(projects)
    .innerJoin(collaborators, eq(collaborators.organizationId, projects.organizationId))
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(
      and(
        eq(projects.id, projectId),
        collaboratorSeesProject(collaborators, projects.id),
        callerSeesProject(db, userId),
      ),
    )
    .orderBy(...byName)
  // Everyone who sees the project is listed, so the caller is among them.
  const caller = rows.find((row) => row.id === userId)
  if (!caller) throw new NotFoundError('Project')
  return rows.map(toCollaborator).map(seenBy(caller))
}

async function findMember(db: Db, organizationId: string, userId: string, lock = false): Promise<MemberRow | null> {
  const query = db
    .select(columns)
    .from(collaborators)
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(and(eq(collaborators.organizationId, organizationId), eq(collaborators.userId, userId)))
    .limit(1)
  const rows = await (lock ? query.for('update', { of: collaborators }) : query)
  return rows[0] ?? null
}

async function findInvitation(db: Db, organizationId: string, invitationId: string, lock = false) {
  const query = db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), eq(invitations.id, invitationId), invitationIsOpen))
    .limit(1)
  const rows = await (lock ? query.for('update') : query)
  return rows[0] ?? null
}

/** A member (by user id) or a pending invitation (by its id). */
export async function getOrganizationCollaborator(
  db: Db,
  userId: string,
  organizationId: string,
  collaboratorId: string,
): Promise<Collaborator> {
  const caller = await requireOrganizationMember(db, userId, organizationId)
  const member = await findMember(db, organizationId, collaboratorId)
  if (member) return seenBy(caller)(toCollaborator(member))
  const invitation = await findInvitation(db, organizationId, collaboratorId)
  if (invitation) return seenBy(caller)(invitationToCollaborator(invitation))
  throw new NotFoundError('Collaborator')
}

/**
 * The project_ids a non-admin is given, deduplicated, after checking in one query that
 * each is a project of the organization. Admins always get null (every project).
 */
async function checkedProjectIds(
  db: Db,
  organizationId: string,
  isAdmin: boolean,
  projectIds: string[] | null,
): Promise<string[] | null> {
  if (isAdmin || projectIds === null) return null
  const wanted = [...new Set(projectIds)]
  if (wanted.length === 0) return []
  const found = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.organizationId, organizationId), inArray(projects.id, wanted)))
  const known = new Set(found.map((row) => row.id))
  const missing = wanted.filter((id) => !known.has(id))
  if (missing.length > 0) {
    throw new ValidationError(missing.map((id) => `project_ids: ${id} is not a project of this organization`))
  }
  return wanted
}

/**
 * Invites someone to the organization (admins only): a pending invitation, answered with its
 * accept link once, the same whether or not the email has an account, so an admin (anyone can
 * create an organization) learns nothing about which emails exist, and no one joins without
 * accepting. An invitation never creates an account or sets a password: the invitee picks
 * their own when accepting the link, or, with an account already, accepts once signed in
 * (GET /user/invitations).
 */
export async function inviteCollaborator(
  db: Db,
  urls: UrlBuilder,
  mail: MailDeps,
  userId: string,
  organizationId: string,
  input: InviteCollaborator,
): Promise<InvitedCollaborator> {
  await requireOrganizationAdmin(db, userId, organizationId)
  const projectIds = await checkedProjectIds(db, organizationId, input.is_admin, input.project_ids)
  // Members are listed to the admin already: saying so reveals nothing.
  const [member] = await db
    .select({ one: sql`1` })
    .from(collaborators)
    .innerJoin(users, eq(users.id, collaborators.userId))
    .where(and(eq(collaborators.organizationId, organizationId), sql`lower(${users.email}) = ${input.email}`))
    .limit(1)
  if (member) throw new ConflictError(`email: ${input.email} is already a collaborator`)
  // With email on, the invitation and its email are one transaction: both or neither.
  const { invitation, url, emailed } = await withTransaction(db, async (tx) => {
    const created = await createInvitation(tx, urls, {
      organizationId,
      isAdmin: input.is_admin,
      projectIds,
      email: input.email,
      invitedBy: userId,
    })
    const emailed = mail.transport !== null && (await enqueueInvitationEmail(tx, mail, userId, organizationId, created.invitation, created.url)) !== null
    return { ...created, emailed }
  })
  if (emailed) mail.wakeJobs()
  return { ...invitationToCollaborator(invitation), invitation_url: url, invitation_emailed: emailed }
}

/** The invitation's email: who invites to which organization, and the accept link. */
async function enqueueInvitationEmail(
  tx: Db,
  mail: MailDeps,
  userId: string,
  organizationId: string,
  invitation: { email: string; isAdmin: boolean; expiresAt: Date; createdAt: Date },
  url: string,
): Promise<string | null> {
  const [names] = await tx
    .select({ inviter: users.name, organization: organizations.name })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, organizationId))
    .where(eq(users.id, userId))
  const inviter = names?.inviter || 'An admin'
  const organization = names?.organization ?? 'an organization'
  const days = Math.round((invitation.expiresAt.getTime() - invitation.createdAt.getTime()) / 86_400_000)
  return enqueueMail(
    tx,
    mail,
    invitation.email,
    'invitation',
    renderEmail({
      subject: `${inviter} invited you to ${organization} on Errata`,
      heading: `Join ${organization} on Errata`,
      paragraphs: [
        `${inviter} invited ${invitation.email} to ${organization}${invitation.isAdmin ? ' as an admin' : ''}. Errata collects the errors of their apps, so the team can see and fix them.`,
        `The link works for ${days} days. With an account already, sign in and accept the invitation on your organizations page.`,
      ],
      action: { label: 'Accept the invitation', url },
      footer: ['If you did not expect this, ignore this email: nothing happens unless you accept.'],
    }),
  )
}

/**
 * Locks the organization's admin rows for the rest of the transaction and returns their
 * user ids. Every change that could leave no admin takes this lock first, so two admins
 * demoting or removing each other at once cannot both succeed: the second waits, then
 * sees only one admin left.
 */
async function lockAdmins(tx: Db, organizationId: string): Promise<Set<string>> {
  const rows = await tx
    .select({ userId: collaborators.userId })
    .from(collaborators)
    .where(and(eq(collaborators.organizationId, organizationId), eq(collaborators.isAdmin, true)))
    .for('update')
  return new Set(rows.map((row) => row.userId))
}

/**
 * 404 for outsiders; then the write locks of the organization's projects, and under the
 * admin lock, 403 unless the caller is (still) an admin.
 *
 * The project locks come before any collaborator row, the order of every transaction that
 * holds both (db/project-lock.ts): deleting a project or the organization takes them and then
 * updates or deletes collaborator rows, and changing or removing a member ends by unassigning
 * their errors, which needs them. Taken the other way round, the two deadlocked.
 */
async function lockAsAdmin(tx: Db, userId: string, organizationId: string): Promise<Set<string>> {
  await requireOrganizationMember(tx, userId, organizationId)
  const owned = await tx.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, organizationId))
  await lockProjects(tx, owned.map((row) => row.id))
  const admins = await lockAdmins(tx, organizationId)
  if (!admins.has(userId)) throw new ForbiddenError('only organization admins may do this')
  return admins
}

const lastAdmin = (email: string, doing: string) =>
  new ConflictError(`${email} is the last admin of this organization and cannot be ${doing}; make someone else an admin first`)

/** Changes a member's or pending invitation's role and projects (admins only). */
export async function updateCollaborator(
  db: Db,
  userId: string,
  organizationId: string,
  collaboratorId: string,
  input: UpdateCollaborator,
): Promise<Collaborator> {
  return withTransaction(db, async (tx) => {
    const admins = await lockAsAdmin(tx, userId, organizationId)
    const member = await findMember(tx, organizationId, collaboratorId, true)
    const invitation = member ? null : await findInvitation(tx, organizationId, collaboratorId, true)
    const current = member ?? invitation
    if (!current) throw new NotFoundError('Collaborator')

    const isAdmin = input.is_admin ?? current.isAdmin
    if (member?.isAdmin && !isAdmin && admins.size <= 1) throw lastAdmin(member.email, 'demoted')
    const projectIds =
      input.project_ids === undefined
        ? isAdmin
          ? null
          : current.projectIds
        : await checkedProjectIds(tx, organizationId, isAdmin, input.project_ids)

    if (member) {
      await tx
        .update(collaborators)
        .set({ isAdmin, projectIds })
        .where(and(eq(collaborators.organizationId, organizationId), eq(collaborators.userId, member.id)))
      // Errors in projects they can no longer see cannot stay assigned to them.
      if (!isAdmin && projectIds !== null) {
        await unassignErrors(tx, organizationId, member.id, projectIds)
      }
      return toCollaborator({ ...member, isAdmin, projectIds })
    }
    const [updated] = await tx
      .update(invitations)
      .set({ isAdmin, projectIds })
      .where(eq(invitations.id, collaboratorId))
      .returning()
    if (!updated) throw new NotFoundError('Collaborator')
    return invitationToCollaborator(updated)
  })
}

/**
 * Removes a member, unassigning their errors in this organization's projects, or withdraws
 * a pending invitation (admins only). The last admin cannot be removed.
 */
export async function removeCollaborator(
  db: Db,
  userId: string,
  organizationId: string,
  collaboratorId: string,
): Promise<void> {
  await withTransaction(db, async (tx) => {
    const admins = await lockAsAdmin(tx, userId, organizationId)
    const member = await findMember(tx, organizationId, collaboratorId, true)
    if (!member) {
      const withdrawn = await tx
        .delete(invitations)
        .where(and(eq(invitations.organizationId, organizationId), eq(invitations.id, collaboratorId)))
        .returning({ id: invitations.id })
      if (withdrawn.length === 0) throw new NotFoundError('Collaborator')
      return
    }
    if (member.isAdmin && admins.size <= 1) throw lastAdmin(member.email, 'removed')
    await tx
      .delete(collaborators)
      .where(and(eq(collaborators.organizationId, organizationId), eq(collaborators.userId, member.id)))
    await unassignErrors(tx, organizationId, member.id)
  })
}

/**
 * Unassigns a user's errors in the organization's projects, except those in `keepProjectIds`,
 * holding those projects' write locks (db/project-lock.ts) like every other writer of errors:
 * lockAsAdmin took them already, this only adds a project created since.
 * Uses errors_project_assigned_idx (project_id, assigned_collaborator_id).
 */
async function unassignErrors(tx: Db, organizationId: string, userId: string, keepProjectIds: string[] = []) {
  const affected = await tx
    .select({ id: projects.id })
    .from(projects)
    .where(
      and(
        eq(projects.organizationId, organizationId),
        keepProjectIds.length > 0 ? notInArray(projects.id, keepProjectIds) : undefined,
      ),
    )
  if (affected.length === 0) return
  const projectIds = affected.map((row) => row.id)
  await lockProjects(tx, projectIds)
  await tx
    .update(errors)
    .set({ assignedCollaboratorId: null })
    .where(and(eq(errors.assignedCollaboratorId, userId), inArray(errors.projectId, projectIds)))
}
