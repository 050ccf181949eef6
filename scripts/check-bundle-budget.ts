// The dashboard's bundle budget: the gzip'd JS and CSS a browser must load before a page can
// render, per kind of first page, from the build's manifest (vite.config.ts writes it). Part of
// the test command (after `vite build`): it fails when a page goes over its budget, so a heavy
// import that slips into the first page's code (a chart library, say) is caught where it lands.
//
//   node --import tsx scripts/check-bundle-budget.ts [dist]
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

interface ManifestChunk {
  file: string
  isEntry?: boolean
  imports?: string[]
  css?: string[]
}
type Manifest = Record<string, ManifestChunk>

/**
 * KB of gzip: a regression guard with room to grow. /login is the sign-in entry (login.html: React
 * and the form, most of it React DOM). What every signed-in page loads (React DOM, the router,
 * TanStack Query, zod/mini, the app's shared code, the early script that starts the first API
 * requests) with the route's own code.
 */
export const BUDGETS_KB = { login: 80, errorsList: 200, errorPage: 200, heaviestPage: 200 }

/** The app's pages: the route modules a page renders, as the router plugin names their split components. */
const APP_PAGES: Record<'errorsList' | 'errorPage', string[]> = {
  errorsList: ['src/routes/_authed.tsx', 'src/routes/_authed/projects.$projectId.errors.index.tsx'],
  errorPage: ['src/routes/_authed.tsx', 'src/routes/_authed/projects.$projectId.errors.$errorId.index.tsx'],
}

/** The app's entry; a page load of /login gets the sign-in entry instead (src/sign-in-main.tsx). */
const APP_ENTRY = 'index.html'
const SIGN_IN_ENTRY = 'login.html'

/** Every file a set of manifest entries loads at once: themselves, their static imports, their CSS. */
function filesOf(manifest: Manifest, keys: string[]): Set<string> {
  const files = new Set<string>()
  const seen = new Set<string>()
  const visit = (key: string) => {
    if (seen.has(key)) return
    seen.add(key)
    const chunk = manifest[key]
    if (!chunk) throw new Error(`the manifest has no ${key}`)
    files.add(chunk.file)
    for (const css of chunk.css ?? []) files.add(css)
    for (const imported of chunk.imports ?? []) visit(imported)
  }
  keys.forEach(visit)
  return files
}

/** The manifest key of a route module's split component chunk. */
function componentChunk(manifest: Manifest, routeFile: string): string {
  const key = Object.keys(manifest).find((k) => k.startsWith(`${routeFile}?`) && k.includes('tsr-split=component'))
  if (!key) throw new Error(`no component chunk for ${routeFile} in the manifest`)
  return key
}

export function measure(dist: string): { page: string; kb: number; budget: number }[] {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest
  const gzipKb = (files: Set<string>) =>
    [...files].reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, file)), { level: 9 }).length, 0) / 1024
  // index.html's early script (src/first-paint/: the first API requests), built apart from the
  // manifest's chunks and written into the page, which every app page runs first: counted in each
  // app page's total.
  const index = readFileSync(join(dist, APP_ENTRY), 'utf8')
  const early = [...index.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)]
    .filter((match) => !/\ssrc=/.test(match[1] ?? ''))
    .map((match) => match[2]!)
    .join('\n')
  if (!early) throw new Error(`${APP_ENTRY} has no early script`)
  const earlyKb = gzipSync(early, { level: 9 }).length / 1024
  const appPageKb = (keys: string[]) => earlyKb + gzipKb(filesOf(manifest, [APP_ENTRY, ...keys]))
  const results = [{ page: 'login', kb: gzipKb(filesOf(manifest, [SIGN_IN_ENTRY])), budget: BUDGETS_KB.login }]
  for (const [page, routes] of Object.entries(APP_PAGES)) {
    results.push({
      page,
      kb: appPageKb(routes.map((route) => componentChunk(manifest, route))),
      budget: BUDGETS_KB[page as keyof typeof APP_PAGES],
    })
  }
  // The heaviest page: the entry with any route's component (and the signed-in shell's, for the routes under it).
  const shell = componentChunk(manifest, 'src/routes/_authed.tsx')
  const routeKeys = Object.keys(manifest).filter((key) => key.includes('tsr-split=component') && key !== shell)
  const heaviest = Math.max(
    ...routeKeys.map((key) => appPageKb([...(key.startsWith('src/routes/_authed/') ? [shell] : []), key])),
  )
  results.push({ page: 'heaviestPage', kb: heaviest, budget: BUDGETS_KB.heaviestPage })
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = measure(process.argv[2] ?? 'dist')
  let over = false
  for (const { page, kb, budget } of results) {
    const verdict = kb <= budget ? 'ok' : 'OVER BUDGET'
    if (kb > budget) over = true
    console.log(`${page.padEnd(12)} ${kb.toFixed(1).padStart(6)} KB gzip (budget ${budget} KB) ${verdict}`)
  }
  if (over) {
    console.error('The dashboard is over its bundle budget: load the heavy part with the route or component that uses it (React.lazy, a split route).')
    process.exit(1)
  }
}
