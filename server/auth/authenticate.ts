import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../context.ts'
import { UnauthorizedError } from '../failures.ts'
import { findUserByToken } from './tokens.ts'

/** `Authorization: token <TOKEN>` (Bugsnag's form); `Bearer <TOKEN>` is accepted too. */
export function readToken(header: string | undefined): string | null {
  const match = header?.trim().match(/^(?:token|bearer)\s+(\S+)$/i)
  return match?.[1] ?? null
}

export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = readToken(c.req.header('Authorization'))
  if (!token) throw new UnauthorizedError()
  const user = await findUserByToken(c.var.deps.database.db, token)
  if (!user) throw new UnauthorizedError('the auth token is invalid or has been revoked')
  c.set('user', user)
  await next()
}
