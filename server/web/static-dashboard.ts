import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'
import { compress } from 'hono/compress'
import type { AppEnv } from '../context.ts'
import { contentSecurityPolicy } from '../http/security-headers.ts'
import { hashedAssets, IMMUTABLE } from './hashed-assets.ts'

/** Paths that belong to the service, never to the dashboard's client-side routes. */
export const SERVICE_PATHS = /^\/(api|notify|sessions|healthz|readyz|sourcemap|react-native-source-map|minidump-symbol|breakpad-symbol|ndk-symbol|minidump|build)(\/|$)/

/** Page loads that get the sign-in entry (login.html: the sign-in page without the app's code). */
const SIGN_IN_PATH = /^\/login\/?$/

/**
 * The CSP sources that allow a page's inline scripts, by their SHA-256 hashes: index.html's early
 * script (src/first-paint/, the first API requests, inlined by vite.config.ts so that it runs as
 * the document is parsed, without waiting for a file of its own). Only those exact scripts run; a
 * script with `src` is a file, allowed by 'self'.
 */
export function inlineScriptSources(html: string): string[] {
  return [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)]
    .filter((match) => !/\ssrc=/.test(match[1] ?? ''))
    .map((match) => `'sha256-${createHash('sha256').update(match[2]!, 'utf8').digest('base64')}'`)
}

/**
 * Serves the built dashboard; any other GET that is not a service path falls back to
 * index.html so client-side routes survive a reload. /login gets login.html, the sign-in page on
 * its own (src/sign-in-main.tsx), when the build has it.
 */
export function staticDashboard(staticDir: string): Hono<AppEnv> {
  const root = resolve(staticDir)
  const indexPath = join(root, 'index.html')
  const signInPath = join(root, 'login.html')
  const app = new Hono<AppEnv>()
  // Without a build (tests, API-only use) only the fallback below answers.
  if (existsSync(root)) serveBuiltFiles(app, root)
  // Built files come with precompressed copies (vite.config.ts); index.html for a client-side route is compressed here.
  app.get('*', compress(), (c) => {
    // A built file that is not there (a chunk of an earlier build) is no page: index.html in its
    // place would be cached for good under the file's name and read as a script.
    if (SERVICE_PATHS.test(c.req.path) || c.req.path.startsWith('/assets/')) return c.json({ errors: [`not found: ${c.req.path}`] }, 404)
    if (!existsSync(indexPath)) {
      return c.text('The dashboard is not built. Run `npm run build` (npm start does this for you).', 503)
    }
    c.header('Cache-Control', 'no-cache')
    if (SIGN_IN_PATH.test(c.req.path) && existsSync(signInPath)) return c.html(readFileSync(signInPath, 'utf8'))
    const page = readFileSync(indexPath, 'utf8')
    const inlineScripts = inlineScriptSources(page)
    if (inlineScripts.length > 0) c.header('Content-Security-Policy', contentSecurityPolicy(inlineScripts))
    return c.html(page)
  })
  app.all('*', (c) => c.json({ errors: [`no endpoint ${c.req.method} ${c.req.path}`] }, 404))
  return app
}

function serveBuiltFiles(app: Hono<AppEnv>, root: string): void {
  // The build's hashed files, from memory, cached for good.
  app.use('/assets/*', hashedAssets(root))
  // Anything else under /assets (a source map, a file written after the start): from the disk, and
  // cached for good as well (Vite puts a content hash in every name there). Set on the way out:
  // serveStatic's onFound runs after its response is made, too late for a header.
  app.use('/assets/*', async (c, next) => {
    await next()
    if (c.res.status === 200) c.header('Cache-Control', IMMUTABLE)
  })
  // The .br or .gz copy beside the file when the browser takes it (Vary: Accept-Encoding).
  app.use('/assets/*', serveStatic({ root, precompressed: true }))
  // The build's own bookkeeping (.vite/manifest.json) is not the dashboard's to serve.
  app.use('*', async (c, next) => (c.req.path.includes('/.') ? c.json({ errors: [`not found: ${c.req.path}`] }, 404) : next()))
  // The rest (index.html at /, favicon.svg) keeps its name across versions: revalidated each time.
  app.use('*', async (c, next) => {
    await next()
    if (c.res.status === 200 && !c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-cache')
  })
  // index.html itself goes to the fallback, which sends it with its inline script's CSP hash.
  const files = serveStatic({ root, precompressed: true })
  app.use('*', async (c, next) => (c.req.path === '/' || c.req.path === '/index.html' ? next() : files(c, next)))
}
