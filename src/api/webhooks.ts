import { queryOptions } from '@tanstack/react-query'
import {
  commentSchema,
  webhookDeliverySchema,
  webhookSchema,
  type CreateWebhook,
  type UpdateWebhook,
  type WebhookDelivery,
} from '../../contract/webhooks.ts'
import { z } from 'zod/mini'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'

export const webhookKeys = {
  all: ['webhooks'] as const,
  list: (projectId: string) => [...webhookKeys.all, 'project', projectId] as const,
  deliveries: (webhookId: string) => [...webhookKeys.all, 'deliveries', webhookId] as const,
}

export const commentKeys = {
  list: (projectId: string, errorId: string) => ['comments', projectId, errorId] as const,
}

/** How often an open delivery log looks again while a delivery is pending. */
export const DELIVERIES_POLL_MS = 2_000

const project = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`
const webhook = (webhookId: string) => `/webhooks/${encodeURIComponent(webhookId)}`

export const webhooksQuery = (projectId: string) =>
  queryOptions({
    queryKey: webhookKeys.list(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(`${project(projectId)}/webhooks`), z.array(webhookSchema), signal),
  })

export const deliveriesQuery = (webhookId: string) =>
  queryOptions({
    queryKey: webhookKeys.deliveries(webhookId),
    queryFn: ({ signal }) => getJson(apiUrl(`${webhook(webhookId)}/deliveries`), z.array(webhookDeliverySchema), signal),
    staleTime: 0,
    refetchInterval: (query: { state: { data?: WebhookDelivery[] } }) =>
      query.state.data?.some((d) => d.state === 'pending') ? DELIVERIES_POLL_MS : false,
  })

/** The answer carries the signing secret; it is never shown again. */
export const createWebhook = (projectId: string, input: Partial<CreateWebhook> & Pick<CreateWebhook, 'url' | 'triggers'>) =>
  sendJson('POST', apiUrl(`${project(projectId)}/webhooks`), input, webhookSchema)

export const updateWebhook = (webhookId: string, input: UpdateWebhook) => sendJson('PATCH', apiUrl(webhook(webhookId)), input, webhookSchema)

export const deleteWebhook = (webhookId: string) => sendEmpty('DELETE', apiUrl(webhook(webhookId)))

export const testWebhook = (webhookId: string) => sendJson('POST', apiUrl(`${webhook(webhookId)}/test`), undefined, webhookDeliverySchema)

export const redeliver = (webhookId: string, deliveryId: string) =>
  sendJson('POST', apiUrl(`${webhook(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`), undefined, webhookDeliverySchema)

export const commentsQuery = (projectId: string, errorId: string) =>
  queryOptions({
    queryKey: commentKeys.list(projectId, errorId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`${project(projectId)}/errors/${encodeURIComponent(errorId)}/comments`), z.array(commentSchema), signal),
  })

export const createComment = (projectId: string, errorId: string, message: string) =>
  sendJson('POST', apiUrl(`${project(projectId)}/errors/${encodeURIComponent(errorId)}/comments`), { message }, commentSchema)

export const deleteComment = (commentId: string) => sendEmpty('DELETE', apiUrl(`/comments/${encodeURIComponent(commentId)}`))

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const webhookMutationKeys = {
  save: (projectId: string) => ['webhooks', 'save', projectId] as const,
  delete: (projectId: string) => ['webhooks', 'delete', projectId] as const,
  deliver: (webhookId: string) => ['webhooks', 'deliver', webhookId] as const,
}

export type WebhookInput = Partial<CreateWebhook> & Pick<CreateWebhook, 'url' | 'triggers'>

/** Creates a webhook, or with `webhookId` updates that one. */
export const saveWebhookMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: webhookMutationKeys.save(projectId),
    mutationFn: (variables: { webhookId: string; input: UpdateWebhook } | { webhookId?: undefined; input: WebhookInput }) =>
      variables.webhookId === undefined ? createWebhook(projectId, variables.input) : updateWebhook(variables.webhookId, variables.input),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(webhookKeys.list(projectId)) },
  })

export const deleteWebhookMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: webhookMutationKeys.delete(projectId),
    mutationFn: (webhookId: string) => deleteWebhook(webhookId),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(webhookKeys.list(projectId)) },
  })

/** A test delivery (no deliveryId) or the redelivery of one. */
export const deliverWebhookMutation = (webhookId: string) =>
  mutationWithCacheRule({
    mutationKey: webhookMutationKeys.deliver(webhookId),
    mutationFn: ({ deliveryId }: { deliveryId?: string }) =>
      deliveryId ? redeliver(webhookId, deliveryId) : testWebhook(webhookId),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(webhookKeys.deliveries(webhookId)) },
  })

export const commentMutationKeys = {
  create: (projectId: string, errorId: string) => ['comments', 'create', projectId, errorId] as const,
  delete: (projectId: string, errorId: string) => ['comments', 'delete', projectId, errorId] as const,
}

export const createCommentMutation = (projectId: string, errorId: string) =>
  mutationWithCacheRule({
    mutationKey: commentMutationKeys.create(projectId, errorId),
    mutationFn: (message: string) => createComment(projectId, errorId, message),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(commentKeys.list(projectId, errorId)) },
  })

export const deleteCommentMutation = (projectId: string, errorId: string) =>
  mutationWithCacheRule({
    mutationKey: commentMutationKeys.delete(projectId, errorId),
    mutationFn: (commentId: string) => deleteComment(commentId),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(commentKeys.list(projectId, errorId)) },
  })
