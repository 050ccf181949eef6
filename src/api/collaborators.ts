import { queryOptions } from '@tanstack/react-query'
import {
  collaboratorSchema,
  invitationSchema,
  invitedCollaboratorSchema,
  userInvitationSchema,
  type AcceptInvitation,
  type InviteCollaborator,
  type UpdateCollaborator,
} from '../../contract/collaborators.ts'
import { z } from 'zod/mini'
import { organizationSchema } from '../../contract/organizations.ts'
import { loginResponseSchema, type LoginResponse } from '../../contract/users.ts'
import { writeToken } from '../lib/token-store.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'
import { userKeys } from './auth.ts'
import { organizationKeys } from './organizations.ts'
import { projectKeys } from './projects.ts'

export const collaboratorKeys = {
  all: ['collaborators'] as const,
  list: (organizationId: string) => [...collaboratorKeys.all, 'list', organizationId] as const,
  project: (projectId: string) => [...collaboratorKeys.all, 'project', projectId] as const,
}

export const invitationKeys = {
  detail: (token: string) => ['invitations', token] as const,
  mine: () => ['invitations', 'mine'] as const,
}

const collaboratorsPath = (organizationId: string) => `/organizations/${encodeURIComponent(organizationId)}/collaborators`
const collaboratorPath = (organizationId: string, collaboratorId: string) =>
  `${collaboratorsPath(organizationId)}/${encodeURIComponent(collaboratorId)}`

export const collaboratorsQuery = (organizationId: string) =>
  queryOptions({
    queryKey: collaboratorKeys.list(organizationId),
    queryFn: ({ signal }) => getJson(apiUrl(collaboratorsPath(organizationId)), z.array(collaboratorSchema), signal),
    staleTime: 60_000,
  })

/** Who can see a project: the people an error of it can be assigned to. */
export const projectCollaboratorsQuery = (projectId: string) =>
  queryOptions({
    queryKey: collaboratorKeys.project(projectId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`/projects/${encodeURIComponent(projectId)}/collaborators`), z.array(collaboratorSchema), signal),
    staleTime: 60_000,
  })

/** Answers `invitation_url` once, when a pending invitation was created (or renewed). */
export const inviteCollaborator = (organizationId: string, input: InviteCollaborator) =>
  sendJson('POST', apiUrl(collaboratorsPath(organizationId)), input, invitedCollaboratorSchema)

export const updateCollaborator = (organizationId: string, collaboratorId: string, input: UpdateCollaborator) =>
  sendJson('PATCH', apiUrl(collaboratorPath(organizationId, collaboratorId)), input, collaboratorSchema)

/** Removes a member or withdraws a pending invitation (204). */
export const removeCollaborator = (organizationId: string, collaboratorId: string) =>
  sendEmpty('DELETE', apiUrl(collaboratorPath(organizationId, collaboratorId)))

const invitationPath = (token: string) => `/invitations/${encodeURIComponent(token)}`

export const invitationQuery = (token: string) =>
  queryOptions({
    queryKey: invitationKeys.detail(token),
    queryFn: ({ signal }) => getJson(apiUrl(invitationPath(token)), invitationSchema, signal),
    staleTime: 5 * 60_000,
  })

/** Creates the invitee's account and keeps its token, exactly as login does. */
export async function acceptInvitation(token: string, input: AcceptInvitation): Promise<LoginResponse> {
  const response = await sendJson('POST', apiUrl(`${invitationPath(token)}/accept`), input, loginResponseSchema)
  writeToken(response.token)
  return response
}

/** Invitations to the signed-in user's email: accepted or declined on the organizations page. */
export const userInvitationsQuery = () =>
  queryOptions({
    queryKey: invitationKeys.mine(),
    queryFn: ({ signal }) => getJson(apiUrl('/user/invitations'), z.array(userInvitationSchema), signal),
    staleTime: 60_000,
  })

/** Joins the invitation's organization (answers the organization). */
export const acceptUserInvitation = (invitationId: string) =>
  sendJson('POST', apiUrl(`/user/invitations/${encodeURIComponent(invitationId)}/accept`), undefined, organizationSchema)

/** Declines: the invitation is withdrawn (204). */
export const declineUserInvitation = (invitationId: string) =>
  sendEmpty('DELETE', apiUrl(`/user/invitations/${encodeURIComponent(invitationId)}`))

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const collaboratorMutationKeys = {
  invite: (organizationId: string) => ['collaborators', 'invite', organizationId] as const,
  update: (organizationId: string) => ['collaborators', 'update', organizationId] as const,
  remove: (organizationId: string) => ['collaborators', 'remove', organizationId] as const,
}

// The list, and collaborators_count of each project, change with the collaborators.
const collaboratorsChanged = (organizationId: string) =>
  invalidate(collaboratorKeys.list(organizationId), projectKeys.list(organizationId))

export const inviteCollaboratorMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: collaboratorMutationKeys.invite(organizationId),
    mutationFn: (input: InviteCollaborator) => inviteCollaborator(organizationId, input),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => collaboratorsChanged(organizationId) },
  })

export const updateCollaboratorMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: collaboratorMutationKeys.update(organizationId),
    mutationFn: ({ collaboratorId, input }: { collaboratorId: string; input: UpdateCollaborator }) =>
      updateCollaborator(organizationId, collaboratorId, input),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => collaboratorsChanged(organizationId) },
  })

/** Removes a collaborator; `leaving` says it is the signed-in user (the organization goes out of reach). */
export const removeCollaboratorMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: collaboratorMutationKeys.remove(organizationId),
    mutationFn: ({ collaboratorId }: { collaboratorId: string; leaving: boolean }) => removeCollaborator(organizationId, collaboratorId),
    meta: { inlineErrors: true },
    cache: {
      afterSuccess: (_data, { leaving }) =>
        leaving
          ? // The signed-in user left: the organization is no longer theirs to see.
            { remove: [collaboratorKeys.list(organizationId)], ...invalidate(organizationKeys.all) }
          : collaboratorsChanged(organizationId),
    },
  })

export const invitationMutationKeys = {
  answer: () => ['invitations', 'answer'] as const,
}

/** Accepts (answering the organization joined) or declines an invitation to the signed-in user. */
export const answerInvitationMutation = () =>
  mutationWithCacheRule({
    mutationKey: invitationMutationKeys.answer(),
    mutationFn: async ({ invitationId, accept }: { invitationId: string; accept: boolean }) =>
      accept ? acceptUserInvitation(invitationId) : (await declineUserInvitation(invitationId), null),
    cache: { afterSuccess: () => invalidate(invitationKeys.mine(), organizationKeys.all) },
  })

/**
 * Accepting an invitation by its link signs in as the invited user: whoever was signed in before
 * in this browser is not who we are now, so the cache starts clean, knowing only the new user.
 */
export const acceptInvitationMutation = (token: string) =>
  mutationWithCacheRule({
    mutationKey: ['invitations', 'accept-link'] as const,
    mutationFn: (input: AcceptInvitation) => acceptInvitation(token, input),
    meta: { inlineErrors: true },
    cache: { afterSuccess: ({ user }) => ({ clear: true, write: [[userKeys.current(), user]] }) },
  })
