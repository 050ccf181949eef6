// Authorization at the edge. Before any route validates its input or reads data, the caller's
// access to what the path names is resolved once: the organization (/organizations/:id…, the
// legacy API's /accounts/:id…: an account is an organization), the
// project (/projects/:id…), or the project of a resource addressed by its own id (an error, an
// event, a comment, a webhook, a release group). Outsiders, and members restricted to other
// projects, get 404 naming what they asked for, so existence is not revealed; routes that need an
// admin say so with `requireAdmin` ahead of their validators, so a member gets 403, never a
// validation message about a request it may not make.
//
// An organization token (Principal kind 'organization') acts as an admin of its own organization
// and of nothing else: every other organization, and every project or resource of one, is 404 to
// it. Its scope's userId is the admin who made the token, the author of what it changes.
import { eq } from 'drizzle-orm'
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv, Principal, Scope } from '../context.ts'
import type { Db } from '../db/client.ts'
import { comments, errors, events, projects, releases, webhooks } from '../db/schema.ts'
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
async function projectScope(db: Db, principal: Principal, projectId: string, name: string): Promise<Scope> {
  if (principal.kind === 'organization') {
    const rows = await db.select({ organizationId: projects.organizationId }).from(projects).where(eq(projects.id, projectId)).limit(1)
    if (rows[0]?.organizationId !== principal.organizationId) throw new NotFoundError(name)
    return { userId: principal.actorId, organizationId: principal.organizationId, projectId, isAdmin: true }
  }
  const userId = principal.user.id
  try {
    const access = await requireProjectAccess(db, userId, projectId)
    return { userId, organizationId: access.organizationId, projectId, isAdmin: access.isAdmin }
  } catch (err) {
    if (err instanceof NotFoundError) throw new NotFoundError(name)
    throw err
  }
}

/** Membership of the organization `organizationId`, or 404. */
async function organizationScope(db: Db, principal: Principal, organizationId: string): Promise<Scope> {
  if (principal.kind === 'organization') {
    if (organizationId !== principal.organizationId) throw new NotFoundError('Organization')
    return { userId: principal.actorId, organizationId, projectId: null, isAdmin: true }
  }
  const membership = await requireOrganizationMember(db, principal.user.id, organizationId)
  return { userId: principal.user.id, organizationId, projectId: null, isAdmin: membership.isAdmin }
}

/** What the path (below the API's mount) names, resolved for `principal`; null for paths about the caller alone. */
export async function resolveScope(db: Db, principal: Principal, path: string): Promise<Scope | null> {
  const [, segment, id, ...rest] = path.split('/')
  if (!segment || !id) return null
  // The caller's own choices for a project (/user/notifications/projects/:id): that project's access.
  if (segment === 'user' && id === 'notifications' && rest[0] === 'projects' && rest[1]) return projectScope(db, principal, rest[1], 'Project')
  // The legacy API's accounts are organizations.
  if (segment === 'organizations' || segment === 'accounts') return organizationScope(db, principal, id)
  if (segment === 'projects') return projectScope(db, principal, id, 'Project')
  const resource = RESOURCES.find((r) => r.segment === segment)
  if (!resource) return null
  const projectId = await projectOf(db, resource, id)
  if (!projectId) throw new NotFoundError(resource.name)
  return projectScope(db, principal, projectId, resource.name)
}

/** Resolves the request's scope (after authentication) and keeps it for the routes as `c.var.scope`. */
export const authorizeScope: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path.slice(c.var.apiMount.length)
  const scope = await resolveScope(c.var.deps.database.db, c.var.principal, path)
  if (scope) c.set('scope', scope)
  await next()
}

/** For routes only the organization's admins may call: 403 for members, before anything else is read. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  assertAdmin(c)
  await next()
}

/** requireAdmin's check, for a handler that must make it itself (the legacy routes: server/legacy/legacy-route.ts). */
export function assertAdmin(c: Context<AppEnv>): Scope {
  const scope = c.get('scope')
  if (!scope) throw new Error(`requireAdmin on ${c.req.path}, which names no organization or project`)
  if (!scope.isAdmin) throw new ForbiddenError('only organization admins may do this')
  return scope
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
