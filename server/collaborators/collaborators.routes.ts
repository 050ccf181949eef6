import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'

export const collaboratorRoutes = new Hono<AppEnv>()
