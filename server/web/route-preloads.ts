// The chunks a page load's route needs, named in the page itself: each JS file (and stylesheet)
// of the route modules the URL names, from the build's manifest (vite.config.ts writes
// dist/.vite/manifest.json). Without them the browser learns of these files only after the entry
// has run and the router has matched the URL, a second wave of requests after the first
// (BENCHMARKS.md, "First paint of the errors list"). The page's early script asks for them
// (src/first-paint/load-app.ts), after its API requests and the entry's files, at low priority;
// a page without it gets `<link>` tags (`preloadLinks`).
//
// Which route modules a URL needs comes from the route files' names (TanStack Router's flat
// file convention, src/routes/): `_authed/projects.$projectId.errors.index.tsx` is
// /projects/:projectId/errors under the `_authed` layout; `$x` is a parameter, `x_` is not
// nested under `x`, a leading `_` is a layout without a path segment.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

interface ManifestChunk {
  file: string
  imports?: string[]
  css?: string[]
}
type Manifest = Record<string, ManifestChunk>

const ROUTES_DIR = 'src/routes/'
/** The split component chunks of a route module, as the router plugin names them in the manifest. */
const COMPONENT_SPLIT = '?tsr-split=component'

interface RoutePattern {
  /** The route modules to load: its layouts (outermost first) and itself. */
  modules: string[]
  segments: string[]
  /** Fewer parameters is more specific: /projects/$projectId/… beats /$organizationSlug/$projectSlug/…. */
  params: number
}

/** A route file's path segments (`$` for a parameter) and its layout modules, from its name. */
function toPattern(routeFile: string, routeFiles: Set<string>): RoutePattern | null {
  const name = routeFile.slice(ROUTES_DIR.length).replace(/\.tsx$/, '')
  const segments: string[] = []
  const modules: string[] = []
  const dirs = name.split('/')
  // Layout directories (`_authed/…`) have a module of the same name beside them.
  let prefix = ROUTES_DIR
  for (const dir of dirs.slice(0, -1)) {
    modules.push(`${prefix}${dir}.tsx`)
    prefix += `${dir}/`
  }
  const parts = dirs.at(-1)!.split('.')
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part === 'index' && i === parts.length - 1) break
    if (part.startsWith('_')) continue
    const unnested = part.endsWith('_')
    const segment = unnested ? part.slice(0, -1) : part
    segments.push(segment.startsWith('$') ? '$' : segment)
    // A file named by the parts so far is a parent layout (unless this part opts out of nesting).
    const parent = `${prefix}${parts.slice(0, i + 1).join('.')}.tsx`
    if (!unnested && i < parts.length - 1 && routeFiles.has(parent)) modules.push(parent)
  }
  if (segments.length === 0 && name !== 'index' && !name.endsWith('/index')) return null
  modules.push(routeFile)
  return { modules, segments, params: segments.filter((s) => s === '$').length }
}

function matches(pattern: RoutePattern, pathSegments: string[]): boolean {
  return (
    pattern.segments.length === pathSegments.length &&
    pattern.segments.every((segment, i) => segment === '$' || segment === pathSegments[i])
  )
}

/**
 * Reads the manifest once and answers, for a page's path, the URLs of its route's files that the
 * entry does not already load (index.html names those). No manifest (a build without one, tests
 * without a build): none.
 */
export function routePreloads(root: string, entry = 'index.html'): (path: string) => string[] {
  const manifestPath = join(root, '.vite', 'manifest.json')
  if (!existsSync(manifestPath)) return () => []
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest

  const loadedBy = (keys: string[]) => {
    const files = new Set<string>()
    const seen = new Set<string>()
    const visit = (key: string) => {
      const chunk = manifest[key]
      if (seen.has(key) || !chunk) return
      seen.add(key)
      files.add(chunk.file)
      for (const css of chunk.css ?? []) files.add(css)
      chunk.imports?.forEach(visit)
    }
    keys.forEach(visit)
    return files
  }
  const entryFiles = loadedBy([entry])
  const routeFiles = new Set(
    Object.keys(manifest)
      .filter((key) => key.startsWith(ROUTES_DIR) && key.endsWith(COMPONENT_SPLIT))
      .map((key) => key.slice(0, -COMPONENT_SPLIT.length)),
  )
  const patterns = [...routeFiles]
    .map((file) => toPattern(file, routeFiles))
    .filter((pattern): pattern is RoutePattern => pattern !== null)
    .sort((a, b) => a.params - b.params)

  const cache = new Map<string, string[]>()
  return (path) => {
    const pathSegments = path.split('/').filter(Boolean)
    const pattern = patterns.find((candidate) => matches(candidate, pathSegments))
    if (!pattern) return []
    const key = pattern.modules.join('|')
    let files = cache.get(key)
    if (files === undefined) {
      const loaded = loadedBy(pattern.modules.filter((m) => routeFiles.has(m)).map((m) => `${m}${COMPONENT_SPLIT}`))
      files = [...loaded].filter((file) => !entryFiles.has(file)).map((file) => `/${file}`)
      cache.set(key, files)
    }
    return files
  }
}

/** The files as `<link>` tags of the document's head, for a page without the early script that asks for them. */
export function preloadLinks(files: readonly string[]): string {
  return files
    .map((file) =>
      file.endsWith('.css')
        ? `<link rel="preload" as="style" crossorigin href="${file}">`
        : `<link rel="modulepreload" fetchpriority="low" crossorigin href="${file}">`,
    )
    .join('\n    ')
}
