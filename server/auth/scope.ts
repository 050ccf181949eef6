// Authorization at the edge. Before any route validates its input or reads data, the caller's
// access to what the path names is resolved once: the organization (/organizations/:id…), the
// project (/projects/:id…), or the project of a resource addressed by its own id (an error, an
// event, a comment, a webhook, a release group). Outsiders, and members restricted to other
// projects, get 404 naming what they asked for, so existence is not revealed; routes that need an
// admin say so with `requireAdmin` ahead of their validators, so a member gets 403, never a
// validation message about a request it may not make.
import { eq } from 'drizzle-orm'
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv, Scope } from '../context.ts'
import type { Db } from '../db/client.ts'
import { comments, errors, events, releases, webhooks } from '../db/schema.ts'
import { ForbiddenError, NotFoundError } from '../failures.ts'
import { requireOrganizationMember, requireProjectAccess } from './access.ts'

/** A scope that names a project: what services of project resources are handed. */
export type ProjectScope = Scope & { projectId: string }

/** A resource addressed by its own id, authorized through the project it belongs to. */
interface OwnedResource {
  /** The path's first segment. */
  segment: string
  /** As 404 messages name it. */
  name: string
  table: PgTable
  id: AnyPgColumn
  projectId: AnyPgColumn
}

const RESOURCES: readonly OwnedResource[] = [
  { segment: 'errors', name: 'Error', table: errors, id: errors.id, projectId: errors.projectId },
  { segment: 'events', name: 'Event', table: events, id: events.id, projectId: events.projectId },
  { segment: 'comments', name: 'Comment', table: comments, id: comments.id, projectId: comments.projectId },
  { segment: 'webhooks', name: 'Webhook', table: webhooks, id: webhooks.id, projectId: webhooks.projectId },
  // Errata keeps one release per release group: the group's id is its release's.
  { segment: 'release_groups', name: 'Release group', table: releases, id: releases.id, projectId: releases.projectId },
]

async function projectOf(db: Db, resource: OwnedResource, id: string): Promise<string | null> {
  const rows = await db.select({ projectId: resource.projectId }).from(resource.table).where(eq(resource.id, id)).limit(1)
  return (rows[0]?.projectId as string | undefined) ?? null
}

/** Access to `projectId`, or 404 naming `name` (the project, or the resource asked for through it). */
async function projectScope(db: Db, userId: string, projectId: string, name: string): Promise<Scope> {
  try {
    const access = await requireProjectAccess(db, userId, projectId)
    return { userId, organizationId: access.organizationId, projectId, isAdmin: access.isAdmin }
  } catch (err) {
    if (err instanceof NotFoundError) throw new NotFoundError(name)
    throw err
  }
}

/** What the path (below the API's mount) names, resolved for `userId`; null for paths about the caller alone. */
export async function resolveScope(db: Db, userId: string, path: string): Promise<Scope | null> {
  const [, segment, id, ...rest] = path.split('/')
  if (!segment || !id) return null
  // The caller's own choices for a project (/user/notifications/projects/:id): that project's access.
  if (segment === 'user' && id === 'notifications' && rest[0] === 'projects' && rest[1]) return projectScope(db, userId, rest[1], 'Project')
  if (segment === 'organizations') {
    const membership = await requireOrganizationMember(db, userId, id)
    return { userId, organizationId: id, projectId: null, isAdmin: membership.isAdmin }
  }
  if (segment === 'projects') return projectScope(db, userId, id, 'Project')
  const resource = RESOURCES.find((r) => r.segment === segment)
  if (!resource) return null
  const projectId = await projectOf(db, resource, id)
  if (!projectId) throw new NotFoundError(resource.name)
  return projectScope(db, userId, projectId, resource.name)
}

/** Resolves the request's scope (after authentication) and keeps it for the routes as `c.var.scope`. */
export const authorizeScope: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path.slice(c.var.apiMount.length)
  const scope = await resolveScope(c.var.deps.database.db, c.var.user.id, path)
  if (scope) c.set('scope', scope)
  await next()
}

/** For routes only the organization's admins may call: 403 for members, before anything else is read. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const scope = c.get('scope')
  if (!scope) throw new Error(`requireAdmin on ${c.req.path}, which names no organization or project`)
  if (!scope.isAdmin) throw new ForbiddenError('only organization admins may do this')
  await next()
}

/** The scope of a route under /organizations/:id, resolved at the edge. */
export function organizationScopeOf(c: Context<AppEnv>): Scope {
  const scope = c.get('scope')
  if (!scope) throw new Error(`${c.req.path} names no organization`)
  return scope
}

/** The scope of a route under /projects/:id, or of a resource of a project, resolved at the edge. */
export function projectScopeOf(c: Context<AppEnv>): ProjectScope {
  const scope = c.get('scope')
  if (!scope?.projectId) throw new Error(`${c.req.path} names no project`)
  return scope as ProjectScope
}
