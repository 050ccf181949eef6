import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'

export const errorRoutes = new Hono<AppEnv>()
