import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'
import { passwordSchema } from './users.ts'

export const collaboratorSchema = z.object({
  /** The user's id; for a pending invitation, the invitation's id. */
  id: idSchema,
  name: z.string(),
  email: z.string(),
  is_admin: z.boolean(),
  /** null: every project of the organization (always null for admins). */
  project_ids: z.nullable(z.array(idSchema)),
  /** True until an invited person accepts. */
  pending_invitation: z.boolean(),
  created_at: timestampSchema,
})
export type Collaborator = z.infer<typeof collaboratorSchema>

const email = z.pipe(
  z.pipe(z.string().check(z.trim(), z.toLowerCase()), z.email('must be an email address')),
  z.string().check(z.maxLength(320)),
)

/**
 * POST /organizations/{id}/collaborators. A pending invitation is made, whose accept link is
 * answered once as `invitation_url`, the same whether or not the email has an account (an
 * existing account accepts it once signed in). An invitation never sets anyone's name or
 * password: the invitee picks both when accepting. `name` and `password`, which older clients
 * send to create the account directly, are accepted and ignored (dropped like any unknown field).
 */
export const inviteCollaboratorSchema = z.object({
  email,
  is_admin: z._default(z.boolean(), false),
  project_ids: z._default(z.nullable(z.array(idSchema).check(z.maxLength(1000))), null),
})
export type InviteCollaborator = z.infer<typeof inviteCollaboratorSchema>

export const invitedCollaboratorSchema = z.extend(collaboratorSchema, {
  /** The link the invitee opens, answered only this once (only its hash is stored). */
  invitation_url: z.string(),
  /** The link was also emailed to the invitee (email is on: ERRATA_SMTP_URL); otherwise the admin passes it on. */
  invitation_emailed: z.boolean(),
})
export type InvitedCollaborator = z.infer<typeof invitedCollaboratorSchema>

export const updateCollaboratorSchema = z
  .object({
    is_admin: z.optional(z.boolean()),
    project_ids: z.optional(z.nullable(z.array(idSchema).check(z.maxLength(1000)))),
  })
  .check(
    z.refine((v) => v.is_admin !== undefined || v.project_ids !== undefined, {
      message: 'body: give is_admin or project_ids',
    }),
  )
export type UpdateCollaborator = z.infer<typeof updateCollaboratorSchema>

/** GET /invitations/{token} (no auth): what the accept page shows. */
export const invitationSchema = z.object({
  organization_name: z.string(),
  email: z.string(),
  is_admin: z.boolean(),
  expires_at: timestampSchema,
})
export type Invitation = z.infer<typeof invitationSchema>

/**
 * GET /user/invitations: open invitations to the signed-in user's email, which they accept
 * (POST /user/invitations/{id}/accept) or decline (DELETE /user/invitations/{id}).
 */
export const userInvitationSchema = z.object({
  id: idSchema,
  organization_id: idSchema,
  organization_name: z.string(),
  is_admin: z.boolean(),
  /** Who invited them (their name), so they can tell an invitation they expect from one they do not. */
  invited_by: z.string(),
  created_at: timestampSchema,
  expires_at: timestampSchema,
})
export type UserInvitation = z.infer<typeof userInvitationSchema>

/** POST /invitations/{token}/accept (no auth): creates the account; answers like POST /auth/login. */
export const acceptInvitationSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200)),
  password: passwordSchema,
})
export type AcceptInvitation = z.infer<typeof acceptInvitationSchema>
