import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import { legacyErrorRoutes } from './legacy-errors.routes.ts'
import { legacyProjectRoutes } from './legacy-projects.routes.ts'
import { legacyUserRoutes } from './legacy-users.routes.ts'

/**
 * The legacy v1 API (docs/legacy-api.md), mounted ahead of v2's routes: its handlers answer v1
 * requests and hand v2 ones on (legacy-route.ts), so the paths both APIs have stay v2's under
 * X-Version: 2.
 */
export const legacyRoutes = new Hono<AppEnv>().route('/', legacyErrorRoutes).route('/', legacyProjectRoutes).route('/', legacyUserRoutes)
