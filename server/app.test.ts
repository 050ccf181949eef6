import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiPortApp, createApp } from './app.ts'
import { bootstrapFirstAdmin } from './auth/bootstrap.ts'
import { journalDiskSpace } from './health/readiness.ts'
import { loadConfig } from './config.ts'
import { seedProject } from './test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from './test-support/test-app.ts'

let ctx: TestContext
let user: TestUser
const staticDir = mkdtempSync(join(tmpdir(), 'errata-static-'))
/** index.html's inline early script, as the build writes it (vite.config.ts). */
const EARLY_SCRIPT = 'window.errataEarly = "</b>"'
const EARLY_SCRIPT_TAG = '<script>'

beforeAll(async () => {
  writeFileSync(join(staticDir, 'index.html'), `<!doctype html><title>Errata</title>${EARLY_SCRIPT_TAG}${EARLY_SCRIPT}</script><div id="root"></div>`)
  writeFileSync(join(staticDir, 'login.html'), '<!doctype html><title>Sign in · Errata</title><div id="root"></div>')
  mkdirSync(join(staticDir, 'assets'))
  writeFileSync(join(staticDir, 'assets', 'index-abc123.js'), 'export {}')
  // A chunk with its precompressed copy, as the build writes them (vite.config.ts), and the build's manifest.
  const chunk = `export const text = ${JSON.stringify('chunk '.repeat(400))}`
  writeFileSync(join(staticDir, 'assets', 'big-def456.js'), chunk)
  writeFileSync(join(staticDir, 'assets', 'big-def456.js.br'), brotliCompressSync(chunk))
  mkdirSync(join(staticDir, '.vite'))
  writeFileSync(join(staticDir, '.vite', 'manifest.json'), '{}')
  ctx = await createTestContext({ staticDir })
  user = await ctx.createUser('Port User')
})
afterAll(async () => {
  await ctx.close()
  rmSync(staticDir, { recursive: true, force: true })
})

describe('app wiring', () => {
  it('reports liveness, and readiness with the database engine', async () => {
    expect(await (await ctx.request('/healthz')).json()).toEqual({ status: 'ok' })
    const res = await ctx.request('/readyz')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ status: 'ok', database: ctx.deps.database.engine })
    // On the embedded database: the free space of the ingest journal's disk.
    if (ctx.deps.ingestWriter.logDir) expect(body.ingest_journal.free_bytes).toBeGreaterThan(0)
  })

  it('tells when the ingest journal\'s disk is nearly full', async () => {
    const dir = ctx.deps.ingestWriter.logDir ?? tmpdir()
    expect((await journalDiskSpace(dir, 0)).low).toBe(false)
    const nearlyFull = await journalDiskSpace(dir, Number.MAX_SAFE_INTEGER)
    expect(nearlyFull.low).toBe(true)
    expect(nearlyFull.freeBytes).toBeGreaterThan(0)
  })

  it('serves index.html for dashboard routes so a reload keeps the page', async () => {
    const res = await ctx.request('/projects/abc/errors?sort=events')
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('<div id="root">')
  })

  it('sends the precompressed copy of a built file to a browser that takes it, cached for good', async () => {
    const res = await ctx.request('/assets/big-def456.js', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Encoding')).toBe('br')
    expect(res.headers.get('Vary')).toContain('Accept-Encoding')
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('Content-Type')).toMatch(/javascript/)
    expect(brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString()).toContain('chunk chunk')
    // Without Accept-Encoding, the file as built, the same headers otherwise.
    const plain = await ctx.request('/assets/big-def456.js')
    expect(plain.headers.get('Content-Encoding')).toBeNull()
    expect(plain.headers.get('Vary')).toContain('Accept-Encoding')
    expect(plain.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    expect(await plain.text()).toContain('chunk chunk')
    // A file without copies; a HEAD; an encoding the browser refuses.
    const small = await ctx.request('/assets/index-abc123.js', { headers: { 'Accept-Encoding': 'br' } })
    expect([small.status, small.headers.get('Content-Encoding'), small.headers.get('Content-Length'), await small.text()]).toEqual([200, null, '9', 'export {}'])
    const head = await ctx.request('/assets/big-def456.js', { method: 'HEAD', headers: { 'Accept-Encoding': 'br' } })
    expect([head.status, head.headers.get('Content-Encoding'), await head.text()]).toEqual([200, 'br', ''])
    const refused = await ctx.request('/assets/big-def456.js', { headers: { 'Accept-Encoding': 'br;q=0, identity' } })
    expect(refused.headers.get('Content-Encoding')).toBeNull()
  })

  it('serves a built file written after the start from the disk, cached for good too, and 404 for one that is not there', async () => {
    writeFileSync(join(staticDir, 'assets', 'late-aaa111.js'), 'export const late = 1')
    const late = await ctx.request('/assets/late-aaa111.js')
    expect([late.status, late.headers.get('Cache-Control'), await late.text()]).toEqual([200, 'public, max-age=31536000, immutable', 'export const late = 1'])
    // Not index.html: that would be cached for good under the file's name, and read as a script.
    const missing = await ctx.request('/assets/none-bbb222.js')
    expect([missing.status, missing.headers.get('Cache-Control'), await missing.json()]).toEqual([404, null, { errors: ['not found: /assets/none-bbb222.js'] }])
  })

  it('serves the sign-in entry (login.html) for a page load of /login, revalidated like index.html', async () => {
    for (const path of ['/login', '/login/', '/login?redirect=%2Fprojects%2Fabc%2Ferrors']) {
      const res = await ctx.request(path)
      expect([res.status, res.headers.get('Cache-Control')], path).toEqual([200, 'no-cache'])
      expect(await res.text(), path).toContain('<title>Sign in · Errata</title>')
    }
    // Only /login: a path under it is a client-side route like any other.
    expect(await (await ctx.request('/login-help')).text()).toContain('<title>Errata</title>')
  })

  it('has index.html revalidated on every load, at / as for a client-side route', async () => {
    for (const path of ['/', '/projects/abc/errors']) {
      const res = await ctx.request(path)
      expect([res.status, res.headers.get('Cache-Control')], path).toEqual([200, 'no-cache'])
    }
  })

  it('does not serve the build\'s own bookkeeping (.vite/)', async () => {
    const res = await ctx.request('/.vite/manifest.json')
    expect(res.status).toBe(404)
  })

  it('compresses API answers of 1 KB and more for clients that take it, and leaves small ones as they are', async () => {
    for (let i = 0; i < 12; i += 1) await ctx.request('/api/user/organizations', { method: 'POST', token: user.token, json: { name: `Compressed ${i}` } })
    const headers = { 'Accept-Encoding': 'gzip' }
    const list = await createApp(ctx.deps).request('http://errata.test/api/user/organizations?per_page=100', {
      headers: { ...headers, Authorization: `token ${user.token}`, 'X-Version': '2' },
    })
    expect(list.status).toBe(200)
    expect(list.headers.get('Content-Encoding')).toBe('gzip')
    const organizations = JSON.parse(gunzipSync(Buffer.from(await list.arrayBuffer())).toString('utf8')) as { name: string }[]
    expect(organizations.filter((o) => o.name.startsWith('Compressed '))).toHaveLength(12)
    const small = await createApp(ctx.deps).request('http://errata.test/api/user', {
      headers: { ...headers, Authorization: `token ${user.token}`, 'X-Version': '2' },
    })
    expect(small.headers.get('Content-Encoding')).toBeNull()
    expect((await small.json()).id).toBe(user.id)
  })

  it('answers JSON 404 for unknown API paths instead of the dashboard', async () => {
    const res = await ctx.request('/api/nope', { token: user.token })
    expect(res.status).toBe(404)
    expect((await res.json()).errors[0]).toContain('/api/nope')
  })

  it('answers 405 with Allow for a method a path does not take, on both listeners', async () => {
    const { project } = await seedProject(ctx, { user })
    const put = await ctx.request(`/api/projects/${project.id}/errors/e1`, { method: 'PUT', token: user.token })
    expect(put.status).toBe(405)
    expect(put.headers.get('Allow')).toBe('GET, HEAD, PATCH')
    expect((await put.json()).errors).toEqual([`PUT is not allowed on /api/projects/${project.id}/errors/e1; use GET, HEAD, PATCH`])
    const del = await ctx.request('/api/user', { method: 'DELETE', token: user.token })
    expect([del.status, del.headers.get('Allow')]).toEqual([405, 'GET, HEAD'])
    const onApiPort = await createApiPortApp(ctx.deps).request('http://errata.test:9090/user/tokens/t1', {
      method: 'POST',
      headers: { Authorization: `token ${user.token}`, 'X-Version': '2' },
    })
    expect([onApiPort.status, onApiPort.headers.get('Allow')]).toEqual([405, 'DELETE'])
    // Still 401 before anything else without a token, 404 for paths that do not exist, and 404
    // before 405 for a project the caller cannot see (which says nothing about what it answers).
    expect((await ctx.request('/api/user', { method: 'DELETE' })).status).toBe(401)
    expect((await ctx.request(`/api/projects/${project.id}/nothing`, { method: 'PUT', token: user.token })).status).toBe(404)
    expect((await ctx.request('/api/projects/p1/errors/e1', { method: 'PUT', token: user.token })).status).toBe(404)
  })

  it('answers uploads and notifier requests sent to the API port 404, naming the main port', async () => {
    const deps = { ...ctx.deps, config: { ...ctx.deps.config, publicUrl: undefined, port: 8080 } }
    const apiApp = createApiPortApp(deps)
    const form = new FormData()
    form.set('apiKey', '0'.repeat(32))
    form.set('minifiedUrl', 'https://example.com/app.js')
    form.set('sourceMap', new Blob(['{}']), 'app.js.map')
    for (const [method, path, headers] of [
      ['POST', '/sourcemap', {}],
      ['POST', '/react-native-source-map', {}],
      ['POST', '/sourcemap/', { 'X-Version': '2' }],
      ['POST', '/build', {}],
      ['POST', '/', {}],
      ['POST', '/notify', {}],
      ['POST', '/sessions', { Authorization: `token ${user.token}` }],
    ] as const) {
      const res = await apiApp.request(`http://errata.test:9090${path}`, { method, headers, body: path.includes('sourcemap') ? form : '{}' })
      expect(res.status, path).toBe(404)
      expect(res.headers.get('Connection'), path).toBe('close')
      expect(await res.json(), path).toEqual({
        errors: [`POST ${path}: uploads and notifier requests go to the main port (PORT 8080), not to API_PORT; send this to http://errata.test:8080${path}`],
      })
    }
    // Behind a proxy the address named is the public one.
    const proxied = createApiPortApp({ ...deps, config: { ...deps.config, publicUrl: 'https://errata.example.com' } })
    const res = await proxied.request('http://10.0.0.5:9090/sourcemap', { method: 'POST', body: form })
    expect((await res.json()).errors[0]).toMatch(/send this to https:\/\/errata\.example\.com\/sourcemap$/)
    // The API's own paths and its root are unchanged.
    expect((await apiApp.request('http://errata.test:9090/', { headers: { 'X-Version': '2', Authorization: `token ${user.token}` } })).status).toBe(404)
    expect((await apiApp.request('http://errata.test:9090/user', { headers: { 'X-Version': '2', Authorization: `token ${user.token}` } })).status).toBe(200)
  })

  it('serves the Data Access API at the root of the API port', async () => {
    const apiApp = createApiPortApp(ctx.deps)
    const res = await apiApp.request('http://errata.test:9090/user', {
      headers: { Authorization: `token ${user.token}`, 'X-Version': '2' },
    })
    expect(res.status).toBe(200)
    expect((await res.json()).id).toBe(user.id)
  })

  it('builds url and html_url for the listener the request came to when no public URL is set', async () => {
    const deps = { ...ctx.deps, config: { ...ctx.deps.config, publicUrl: undefined, port: 8080 } }
    const headers = { Authorization: `token ${user.token}`, 'X-Version': '2', 'Content-Type': 'application/json' }
    const main = createApp(deps)
    const org = await (await main.request('http://errata.example:8080/api/user/organizations', { method: 'POST', headers, body: JSON.stringify({ name: 'Links' }) })).json()
    const created = await main.request(`http://errata.example:8080/api/organizations/${org.id}/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Links', type: 'node' }),
    })
    const project = await created.json()
    expect(project.html_url).toBe(`http://errata.example:8080/projects/${project.id}/errors`)

    const onApiPort = await (await createApiPortApp(deps).request(`http://errata.example:9090/projects/${project.id}`, { headers })).json()
    // The dashboard lives on the main port even when the API is asked on API_PORT.
    expect(onApiPort.html_url).toBe(`http://errata.example:8080/projects/${project.id}/errors`)
  })

  it('answers 404, never 500, for ids that cannot exist on every resource path', async () => {
    for (const id of ['%00', 'a%00b', '%FF%FE', 'x'.repeat(5000), '..%2F..%2Fetc']) {
      for (const path of [
        `/api/organizations/${id}`,
        `/api/organizations/${id}/projects`,
        `/api/organizations/${id}/collaborators`,
        `/api/organizations/${id}/collaborators/${id}`,
        `/api/projects/${id}`,
        `/api/projects/${id}/collaborators`,
      ]) {
        const res = await ctx.request(path, { token: user.token })
        expect(res.status, path.slice(0, 60)).toBe(404)
        expect((await res.json()).errors).toHaveLength(1)
      }
    }
  })

  it('answers 400 naming the field, never 500, for NUL characters in bodies and query parameters', async () => {
    const { project } = await seedProject(ctx, { user, organization: 'Nul Org', project: 'Nul' })
    const cases: Array<[string, RequestInit & { token?: string; json?: unknown }, string]> = [
      // Before sign-in, too.
      ['/api/auth/login', { method: 'POST', json: { email: 'a\u0000@example.com', password: 'x' } }, 'email: must not contain NUL'],
      ['/api/user/organizations', { method: 'POST', token: user.token, json: { name: 'Acme\u0000' } }, 'name: must not contain NUL'],
      [`/api/projects/${project.id}`, { method: 'PATCH', token: user.token, json: { name: 'a\u0000b' } }, 'name: must not contain NUL'],
      [`/api/projects/${project.id}/errors?filters[user.id][][type]=eq&filters[user.id][][value]=%00`, { token: user.token }, 'filters[user.id][][value]: must not contain NUL'],
      [`/api/projects/${project.id}/events?start_time=2026%00`, { token: user.token }, 'start_time: must not contain NUL'],
    ]
    for (const [path, init, message] of cases) {
      const res = await ctx.request(path, init)
      expect(res.status, path).toBe(400)
      expect((await res.json()).errors[0]).toContain(message)
    }
    // Nested fields are named by their path; a NUL in a key names the object holding it.
    const nested = await ctx.request('/api/user/organizations', { method: 'POST', token: user.token, json: { name: 'ok', extra: { list: ['a', 'b\u0000'] } } })
    expect((await nested.json()).errors).toEqual(['extra.list[1]: must not contain NUL characters (\\u0000)'])
  })

  it('answers 400, not 500, for a body nested thousands of levels deep, before sign-in too', async () => {
    const deep = `{"email":${'['.repeat(5000)}${']'.repeat(5000)},"password":"x"}`
    const res = await ctx.request('/api/auth/login', { method: 'POST', body: deep, headers: { 'Content-Type': 'application/json' } })
    expect(res.status).toBe(400)
    expect((await res.json()).errors).toEqual(['email[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested more than 64 levels deep'])
    // A body within the limit still reaches validation, which names the field.
    const shallow = await ctx.request('/api/auth/login', { method: 'POST', json: { email: [[['a']]], password: 'x' } })
    expect(shallow.status).toBe(400)
    expect((await shallow.json()).errors[0]).toMatch(/^email: /)
  })

  it('enforces the API body limit with 413', async () => {
    const small = createApp({ ...ctx.deps, config: { ...ctx.deps.config, limits: { ...ctx.deps.config.limits, apiBodyBytes: 64 } } })
    const res = await small.request('http://errata.test/api/user/organizations', {
      method: 'POST',
      headers: { Authorization: `token ${user.token}`, 'X-Version': '2', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(200) }),
    })
    expect(res.status).toBe(413)
    expect(res.headers.get('Connection')).toBe('close')
    expect((await res.json()).errors[0]).toMatch(/limit of 64 bytes/)
  })
})

describe('security headers', () => {
  const expectProtected = (res: Response, what: string) => {
    const csp = res.headers.get('Content-Security-Policy') ?? ''
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp, `${what}: ${directive}`).toContain(directive)
    }
    expect(csp, what).not.toContain('unsafe-inline')
    expect(res.headers.get('X-Frame-Options'), what).toBe('DENY')
    expect(res.headers.get('X-Content-Type-Options'), what).toBe('nosniff')
    expect(res.headers.get('Referrer-Policy'), what).toBe('no-referrer')
    // Left to whoever terminates TLS.
    expect(res.headers.get('Strict-Transport-Security'), what).toBeNull()
  }

  it('protects the dashboard, its assets, the API and its errors from framing and injection', async () => {
    const page = await ctx.request('/projects/abc/errors')
    expect(page.headers.get('Content-Type')).toMatch(/text\/html/)
    expectProtected(page, 'dashboard page')
    const asset = await ctx.request('/assets/index-abc123.js')
    expect(asset.status).toBe(200)
    expectProtected(asset, 'asset')
    expectProtected(await ctx.request('/api/user', { token: user.token }), 'API answer')
    expectProtected(await ctx.request('/api/user'), 'API 401')
    expectProtected(await ctx.request('/api/nope', { token: user.token }), 'API 404')
    expectProtected(await ctx.request('/healthz'), 'health check')
    const onApiPort = await createApiPortApp(ctx.deps).request('http://errata.test:9090/user', {
      headers: { Authorization: `token ${user.token}`, 'X-Version': '2' },
    })
    expectProtected(onApiPort, 'API port')
  })

  it('allows the dashboard document’s own inline script by its hash, and no other', async () => {
    const hash = `'sha256-${createHash('sha256').update(EARLY_SCRIPT).digest('base64')}'`
    for (const path of ['/', '/projects/abc/errors']) {
      const page = await ctx.request(path)
      expect(await page.text()).toContain(`${EARLY_SCRIPT_TAG}${EARLY_SCRIPT}</script>`)
      const scriptSrc = /script-src ([^;]*)/.exec(page.headers.get('Content-Security-Policy') ?? '')?.[1]
      expect(scriptSrc, path).toBe(`'self' ${hash}`)
      expectProtected(page, path)
    }
    // Nothing else carries it: the files and the API keep 'self' alone.
    const asset = await ctx.request('/assets/index-abc123.js')
    expect(asset.headers.get('Content-Security-Policy')).toContain("script-src 'self';")
  })

  it('lets browser notifiers on any origin read ingestion answers', async () => {
    const preflight = await ctx.request('/notify', {
      method: 'OPTIONS',
      headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('https://shop.example')
    expect(preflight.headers.get('Cross-Origin-Resource-Policy')).toBe('cross-origin')
    const refused = await ctx.request('/sessions', { method: 'POST', headers: { Origin: 'https://shop.example' }, body: '{}' })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://shop.example')
    expect(refused.headers.get('Cross-Origin-Resource-Policy')).toBe('cross-origin')
    expect(refused.headers.get('X-Content-Type-Options')).toBe('nosniff')
  })
})

describe('first start', () => {
  it('creates the first admin once, with the configured token', async () => {
    const fresh = await createTestContext()
    try {
      const token = 'a'.repeat(40)
      const created = await bootstrapFirstAdmin(fresh.deps.database, { email: 'root@example.com', token })
      expect(created).toMatchObject({ email: 'root@example.com' })
      expect(created?.generatedPassword).toMatch(/.{12,}/)
      expect(created?.generatedToken).toBeUndefined()
      const me = await fresh.request('/api/user', { token })
      expect((await me.json()).email).toBe('root@example.com')
      expect(await bootstrapFirstAdmin(fresh.deps.database, { email: 'other@example.com' })).toBeNull()
      const login = await fresh.request('/api/auth/login', {
        method: 'POST',
        json: { email: 'root@example.com', password: created?.generatedPassword },
      })
      expect(login.status).toBe(200)
    } finally {
      await fresh.close()
    }
  })

  it('rejects invalid configuration with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/)
    expect(() => loadConfig({ ERRATA_ADMIN_PASSWORD: 'short' })).toThrow(/ERRATA_ADMIN_PASSWORD/)
  })

  it('reads a variable set to nothing as unset: PORT= is the default port, API_PORT= no second port', () => {
    const config = loadConfig({ PORT: '', API_PORT: ' ', ERRATA_PUBLIC_URL: '', DATABASE_URL: '' })
    expect(config.port).toBe(loadConfig({}).port)
    expect(config.apiPort).toBeUndefined()
    expect(config.publicUrl).toBeUndefined()
    expect(config.databaseUrl).toBeUndefined()
  })
})
