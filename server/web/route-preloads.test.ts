import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inlineScriptSources, staticDashboard } from './static-dashboard.ts'

// A build's manifest in the shape vite writes it (a subset of a real one): the entry, the
// signed-in layout and three of its routes, with their shared chunks.
const manifest = {
  'index.html': { file: 'assets/index-e1.js', isEntry: true, imports: ['_react-r1.js'], css: ['assets/index-c1.css'] },
  '_react-r1.js': { file: 'assets/react-r1.js' },
  '_table-t1.js': { file: 'assets/table-t1.js', imports: ['_react-r1.js'] },
  '_chart-h1.js': { file: 'assets/chart-h1.js', css: ['assets/chart-h1.css'] },
  'src/routes/_authed.tsx?tsr-split=component': { file: 'assets/_authed-a1.js', imports: ['_react-r1.js', 'index.html'] },
  'src/routes/_authed/projects.$projectId.errors.index.tsx?tsr-split=component': {
    file: 'assets/projects._projectId.errors.index-l1.js',
    imports: ['_react-r1.js', '_table-t1.js', 'index.html'],
  },
  'src/routes/_authed/projects.$projectId.errors.index.tsx?tsr-split=notFoundComponent': { file: 'assets/projects._projectId.errors.index-n1.js' },
  'src/routes/_authed/projects.$projectId.errors.$errorId.index.tsx?tsr-split=component': {
    file: 'assets/projects._projectId.errors._errorId.index-e1.js',
    imports: ['_chart-h1.js', 'index.html'],
  },
  'src/routes/_authed/$organizationSlug.$projectSlug.errors.$errorId.tsx?tsr-split=component': { file: 'assets/slug-s1.js' },
  'src/routes/_authed/organizations.$organizationId.tsx?tsr-split=component': { file: 'assets/organization-o1.js' },
  'src/routes/_authed/organizations.$organizationId_.settings.tsx?tsr-split=component': { file: 'assets/organization-settings-o2.js' },
  'src/routes/login.tsx?tsr-split=component': { file: 'assets/login-g1.js' },
}

let dir: string
let app: ReturnType<typeof staticDashboard>
let withEarlyScriptDir: string
let withEarlyScript: ReturnType<typeof staticDashboard>
/** index.html's early script as the build writes it (vite.config.ts): it asks for the app's files itself. */
const EARLY_SCRIPT = '<script data-app-entry="/assets/index-e1.js" data-app-preloads="/assets/react-r1.js">window.early = 1</script>'

const builtDashboard = (page: string) => {
  const root = mkdtempSync(join(tmpdir(), 'errata-route-preloads-'))
  writeFileSync(join(root, 'index.html'), page)
  mkdirSync(join(root, '.vite'))
  writeFileSync(join(root, '.vite', 'manifest.json'), JSON.stringify(manifest))
  return root
}

beforeAll(() => {
  dir = builtDashboard('<!doctype html><html><head><title>Errata</title>\n  </head><body><div id="root"></div></body></html>')
  app = staticDashboard(dir)
  withEarlyScriptDir = builtDashboard(`<!doctype html><html><head><title>Errata</title>${EARLY_SCRIPT}\n  </head><body><div id="root"></div></body></html>`)
  withEarlyScript = staticDashboard(withEarlyScriptDir)
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(withEarlyScriptDir, { recursive: true, force: true })
})

const linksOf = async (path: string) => {
  const res = await app.request(path)
  expect(res.status).toBe(200)
  const html = await res.text()
  const head = html.slice(0, html.indexOf('</head>'))
  return [...head.matchAll(/<link rel="(modulepreload|preload)"[^>]*href="([^"]+)"/g)].map(([, rel, href]) => `${rel} ${href}`)
}

describe('route preloads in the page', () => {
  it('names the errors list’s chunks and the signed-in layout’s, not the entry’s own', async () => {
    expect((await linksOf('/projects/p1/errors?sort=events')).sort()).toEqual([
      'modulepreload /assets/_authed-a1.js',
      'modulepreload /assets/projects._projectId.errors.index-l1.js',
      'modulepreload /assets/table-t1.js',
    ])
  })

  it('picks the most specific route: /projects/… over /$organizationSlug/$projectSlug/…, with its CSS', async () => {
    expect((await linksOf('/projects/p1/errors/e1')).sort()).toEqual([
      'modulepreload /assets/_authed-a1.js',
      'modulepreload /assets/chart-h1.js',
      'modulepreload /assets/projects._projectId.errors._errorId.index-e1.js',
      'preload /assets/chart-h1.css',
    ])
    expect(await linksOf('/acme/checkout/errors/e1')).toContain('modulepreload /assets/slug-s1.js')
  })

  it('nests a route under its parent file, unless its name opts out (`x_`)', async () => {
    expect(await linksOf('/organizations/o1/settings')).not.toContain('modulepreload /assets/organization-o1.js')
    expect(await linksOf('/organizations/o1/settings')).toContain('modulepreload /assets/organization-settings-o2.js')
  })

  it('adds nothing for a path no route names', async () => {
    expect(await linksOf('/no/such/page/here/at/all')).toEqual([])
  })
})

describe('route files named on the early script', () => {
  it('go on its tag for it to ask for after its API requests, not in the head, and its hash still allows it', async () => {
    const res = await withEarlyScript.request('/projects/p1/errors')
    const html = await res.text()
    const tag = /<script [^>]*>/.exec(html)?.[0] ?? ''
    const routeFiles = /data-route-preloads="([^"]*)"/.exec(tag)?.[1]?.split(' ').sort()
    expect(routeFiles).toEqual(['/assets/_authed-a1.js', '/assets/projects._projectId.errors.index-l1.js', '/assets/table-t1.js'])
    expect(tag).toContain('data-app-entry="/assets/index-e1.js"')
    expect(html).not.toContain('<link')
    const [hash] = inlineScriptSources(html)
    expect(hash).toBe(inlineScriptSources(EARLY_SCRIPT)[0])
    expect(res.headers.get('Content-Security-Policy')).toContain(`script-src 'self' ${hash};`)
    // A page no route names: the tag as the build wrote it.
    expect(await (await withEarlyScript.request('/no/such/page/here/at/all')).text()).toContain(EARLY_SCRIPT)
  })
})
