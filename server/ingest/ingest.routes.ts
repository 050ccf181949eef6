import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'

export const ingestRoutes = new Hono<AppEnv>()
