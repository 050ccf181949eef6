import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'

/** Paths that belong to the service, never to the dashboard's client-side routes. */
const SERVICE_PATHS = /^\/(api|notify|sessions|healthz|readyz|sourcemap|minidump-symbol|ndk-symbol|minidump|build)(\/|$)/

/**
 * Serves the built dashboard; any other GET that is not a service path falls back to
 * index.html so client-side routes survive a reload.
 */
export function staticDashboard(staticDir: string): Hono<AppEnv> {
  const root = resolve(staticDir)
  const indexPath = join(root, 'index.html')
  const app = new Hono<AppEnv>()
  // Without a build (tests, API-only use) only the fallback below answers.
  if (existsSync(root)) serveBuiltFiles(app, root)
  app.get('*', (c) => {
    if (SERVICE_PATHS.test(c.req.path)) return c.json({ errors: [`not found: ${c.req.path}`] }, 404)
    if (!existsSync(indexPath)) {
      return c.text('The dashboard is not built. Run `npm run build` (npm start does this for you).', 503)
    }
    c.header('Cache-Control', 'no-cache')
    return c.html(readFileSync(indexPath, 'utf8'))
  })
  app.all('*', (c) => c.json({ errors: [`no endpoint ${c.req.method} ${c.req.path}`] }, 404))
  return app
}

function serveBuiltFiles(app: Hono<AppEnv>, root: string): void {
  app.use(
    '/assets/*',
    serveStatic({
      root,
      // Vite puts a content hash in asset names, so they can be cached for good.
      onFound: (_path, c) => c.header('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
  )
  app.use('*', serveStatic({ root }))
}
