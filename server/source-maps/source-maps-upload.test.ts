import { request as httpRequest } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../app.ts'
import { sourceMapFiles, sourceMaps } from '../db/schema.ts'
import { seedProject } from '../test-support/seed.ts'
import { readJsApp, runSourceMapsCli, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, listen, type TestContext } from '../test-support/test-app.ts'

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let apiKey: string
let projectId: string

const MAP = readJsApp('dist/app.min.js.map')
const MINIFIED = readJsApp('dist/app.min.js')

beforeAll(async () => {
  ctx = await createTestContext()
  server = await listen(ctx)
  const { project } = await seedProject(ctx, { user: 'Uploader', organization: 'Upload Org', project: 'Web shop', type: 'browser' })
  apiKey = project.api_key
  projectId = project.id
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
})

const uploadsOf = (id = projectId) => ctx.deps.database.db.select().from(sourceMaps).where(eq(sourceMaps.projectId, id))

/** The same server with a smaller size limit for each file of an upload (and 4 times that for all). */
function withFileLimit(maxFileBytes: number) {
  const deps = { ...ctx.deps, config: { ...ctx.deps.config, sourceMaps: { ...ctx.deps.config.sourceMaps, maxFileBytes } } }
  return { app: createApp(deps), deps }
}

function post(path: string, form: FormData | string, headers: Record<string, string> = {}) {
  return ctx.request(path, { method: 'POST', body: form, headers })
}

async function errorsOf(response: Response): Promise<string[]> {
  return ((await response.json()) as { errors: string[] }).errors
}

describe('the real @bugsnag/source-maps 2.3.3 CLI', () => {
  it('uploads a browser map with its minified file (upload-browser --directory --base-url)', async () => {
    const result = await runSourceMapsCli([
      'upload-browser',
      '--api-key', apiKey,
      '--app-version', '1.2.3',
      '--directory', 'dist',
      '--base-url', 'https://cdn.example.com/assets',
      '--endpoint', server.url,
    ])
    expect(result.output).toContain('Success')
    expect(result.code).toBe(0)
    const [row] = (await uploadsOf()).filter((upload) => upload.minifiedUrl === 'https://cdn.example.com/assets/app.min.js')
    expect(row).toMatchObject({ kind: 'js', appVersion: '1.2.3', hasMinified: true, sourcesCount: 2, uploadedBy: null })
    const files = await ctx.deps.database.db
      .select({ role: sourceMapFiles.role, name: sourceMapFiles.name, size: sourceMapFiles.sizeBytes, content: sourceMapFiles.content })
      .from(sourceMapFiles)
      .where(eq(sourceMapFiles.sourceMapId, row!.id))
    // The map's two embedded sources are stored apart from it, by index; the map keeps the rest.
    expect(files.map((file) => `${file.role} ${file.name}`).sort()).toEqual(['map ', 'minified ', 'source_content 0', 'source_content 1'])
    expect(files.find((file) => file.role === 'minified')?.size).toBe(Buffer.byteLength(MINIFIED))
    const sent = JSON.parse(readJsApp('dist/app.min.js.map')) as { sourcesContent: string[] }
    const storedMap = JSON.parse(gunzipSync(files.find((file) => file.role === 'map')!.content).toString('utf8')) as Record<string, unknown>
    expect(storedMap.sourcesContent).toBeUndefined()
    expect(storedMap.mappings).toBe((sent as unknown as Record<string, unknown>).mappings)
    expect(gunzipSync(files.find((file) => file.name === '1')!.content).toString('utf8')).toBe(sent.sourcesContent[1])
  })

  it('uploads a Node map named by its path from the project root (upload-node)', async () => {
    const result = await runSourceMapsCli([
      'upload-node',
      '--api-key', apiKey,
      '--app-version', '1.2.3',
      '--source-map', 'dist-node/app.min.js.map',
      '--bundle', 'dist-node/app.min.js',
      '--endpoint', server.url,
    ])
    expect(result.code, result.output).toBe(0)
    expect((await uploadsOf()).map((upload) => upload.minifiedUrl)).toContain('dist-node/app.min.js')
  })

  it('uploads a React Native map for a platform and version code (upload-react-native)', async () => {
    const result = await runSourceMapsCli([
      'upload-react-native',
      '--api-key', apiKey,
      '--platform', 'android',
      '--app-version', '1.2.3',
      '--app-version-code', '42',
      '--source-map', 'dist/app.min.js.map',
      '--bundle', 'dist/app.min.js',
      '--endpoint', server.url,
    ])
    expect(result.code, result.output).toBe(0)
    const rn = (await uploadsOf()).filter((upload) => upload.kind === 'react_native')
    expect(rn).toHaveLength(1)
    expect(rn[0]).toMatchObject({ platform: 'android', appVersion: '1.2.3', appVersionCode: '42', dev: false, minifiedUrl: '', hasMinified: true })
  })

  it('fails on a second upload of the same URL and version without --overwrite, and replaces it with', async () => {
    const args = ['upload-browser', '--api-key', apiKey, '--app-version', '1.2.3', '--source-map', 'dist/app.min.js.map', '--bundle-url', 'https://cdn.example.com/once.js', '--endpoint', server.url]
    expect((await runSourceMapsCli(args)).code).toBe(0)
    const before = (await uploadsOf()).find((upload) => upload.minifiedUrl === 'https://cdn.example.com/once.js')!
    const refused = await runSourceMapsCli(args)
    expect(refused.code).toBe(1)
    expect(refused.output).toContain('409')
    const replaced = await runSourceMapsCli([...args, '--overwrite'])
    expect(replaced.code, replaced.output).toBe(0)
    const after = (await uploadsOf()).filter((upload) => upload.minifiedUrl === 'https://cdn.example.com/once.js')
    expect(after).toHaveLength(1)
    expect(after[0]!.id).not.toBe(before.id)
  })

  it('fails on an API key of no project', async () => {
    const result = await runSourceMapsCli(['upload-node', '--api-key', '0'.repeat(32), '--source-map', 'dist-node/app.min.js.map', '--bundle', 'dist-node/app.min.js', '--endpoint', server.url])
    expect(result.code).toBe(1)
    expect(result.output).toMatch(/401|API key/i)
  })

  it('fails at once on a map over the size limit (413, not retried)', async () => {
    const smallServer = await listen(withFileLimit(512))
    try {
      const before = (await uploadsOf()).length
      const result = await runSourceMapsCli(['upload-node', '--api-key', apiKey, '--app-version', '9.9.9', '--source-map', 'dist-node/app.min.js.map', '--bundle', 'dist-node/app.min.js', '--endpoint', smallServer.url])
      expect(result.code).toBe(1)
      expect(result.output).toContain('413')
      expect(await uploadsOf()).toHaveLength(before)
    } finally {
      await smallServer.close()
    }
  })
})

describe('POST /sourcemap refusals', () => {
  const valid = () => ({ apiKey, appVersion: '2.0.0', minifiedUrl: `https://cdn.example.com/${Math.random().toString(36).slice(2)}.js` })

  it('stores an upload with source files named by their URL, and answers OK', async () => {
    const fields = valid()
    const res = await post('/sourcemap', uploadForm({ ...fields, projectRoot: '/builds/app', overwrite: 'false' }, { sourceMap: MAP, minifiedFile: MINIFIED, 'https://cdn.example.com/src/*.js': 'export const x = 1\n' }))
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('OK')
    const [row] = (await uploadsOf()).filter((upload) => upload.minifiedUrl === fields.minifiedUrl)
    expect(row).toMatchObject({ projectRoot: '/builds/app', appVersion: '2.0.0' })
    const files = await ctx.deps.database.db.select({ role: sourceMapFiles.role, name: sourceMapFiles.name }).from(sourceMapFiles).where(eq(sourceMapFiles.sourceMapId, row!.id))
    expect(files).toContainEqual({ role: 'source', name: 'https://cdn.example.com/src/*.js' })
  })

  it('415 for a body that is not multipart', async () => {
    const res = await post('/sourcemap', JSON.stringify(valid()), { 'Content-Type': 'application/json' })
    expect(res.status).toBe(415)
    expect(await errorsOf(res)).toEqual(['Content-Type: expected multipart/form-data, not "application/json"'])
  })

  it('400 for a body that ends before its closing boundary', async () => {
    const res = await post('/sourcemap', '--x\r\nContent-Disposition: form-data; name="apiKey"\r\n\r\nabc', { 'Content-Type': 'multipart/form-data; boundary=x' })
    expect(res.status).toBe(400)
    expect(await errorsOf(res)).toEqual(['body: ends before its closing boundary: the upload is incomplete'])
  })

  it.each([
    ['missing', undefined, "apiKey: missing; send the project's API key in the apiKey field"],
    ['malformed', 'not-a-key', 'apiKey: is not an API key (32 lowercase hexadecimal characters)'],
    ['of no project', 'f'.repeat(32), 'apiKey: no project has this API key'],
  ])('401 for an apiKey %s', async (_case, key, message) => {
    const { apiKey: _omit, ...rest } = valid()
    const res = await post('/sourcemap', uploadForm(key === undefined ? rest : { ...rest, apiKey: key }, { sourceMap: MAP }))
    expect(res.status).toBe(401)
    expect(await errorsOf(res)).toEqual([message])
  })

  it('400 naming minifiedUrl when it is missing, or has too many wildcards', async () => {
    const { minifiedUrl: _omit, ...rest } = valid()
    const missing = await post('/sourcemap', uploadForm(rest, { sourceMap: MAP }))
    expect(missing.status).toBe(400)
    expect(await errorsOf(missing)).toEqual(['minifiedUrl: missing; send the URL (or, for Node, the path) of the minified file, * wildcards allowed'])
    const wild = await post('/sourcemap', uploadForm({ ...rest, minifiedUrl: `https://x/${'*a'.repeat(17)}` }, { sourceMap: MAP }))
    expect(wild.status).toBe(400)
    expect(await errorsOf(wild)).toEqual(['minifiedUrl: has more than 16 * wildcards'])
  })

  it('400 naming sourceMap when no map was sent, and each malformed field', async () => {
    const res = await post('/sourcemap', uploadForm({ ...valid(), overwrite: 'maybe', appVersion: 'a\u0000b' }, {}))
    expect(res.status).toBe(400)
    expect(await errorsOf(res)).toEqual([
      'appVersion: must not contain control characters (line breaks, tabs, NUL)',
      'overwrite: must be true or false, not "maybe"',
      'sourceMap: missing; send the source map file in the sourceMap field',
    ])
  })

  it('422 Nothing to upload when the file fields carry paths instead of files (curl without @)', async () => {
    const res = await post('/sourcemap', uploadForm({ ...valid(), sourceMap: 'dist/app.min.js.map', minifiedFile: 'dist/app.min.js' }))
    expect(res.status).toBe(422)
    expect(await errorsOf(res)).toEqual([
      'Nothing to upload',
      `sourceMap: got the text "dist/app.min.js.map" instead of a file; send the file's content (with curl, put @ before the path: -F 'sourceMap=@dist/app.min.js.map')`,
      `minifiedFile: got the text "dist/app.min.js" instead of a file; send the file's content (with curl, put @ before the path: -F 'minifiedFile=@dist/app.min.js')`,
    ])
    const empty = await post('/sourcemap', uploadForm(valid(), { sourceMap: '' }))
    expect(empty.status).toBe(422)
    expect(await errorsOf(empty)).toEqual(['Nothing to upload', 'sourceMap: the file is empty'])
  })

  it('accepts a map sent as a plain JSON value', async () => {
    const res = await post('/sourcemap', uploadForm({ ...valid(), sourceMap: MAP }))
    expect(res.status).toBe(200)
  })

  it.each([
    ['not JSON', '{"version": 3,', /^sourceMap: is not JSON/],
    ['not version 3', JSON.stringify({ version: 2, sources: [], mappings: '' }), /^sourceMap: "version" is 2; only version 3 source maps are supported$/],
    ['without mappings', JSON.stringify({ version: 3, sources: [] }), /^sourceMap: "mappings" is missing or not a string$/],
    [
      'an index map that cannot be used',
      JSON.stringify({ version: 3, sections: [{ offset: { line: 0, column: 0 }, url: 'https://cdn.example.com/part.js.map' }] }),
      /^sourceMap: index map cannot be used: sections\[0\]: points at another map by "url"/,
    ],
  ])('400 for a source map that is %s', async (_case, map, message) => {
    const res = await post('/sourcemap', uploadForm(valid(), { sourceMap: map }))
    expect(res.status).toBe(400)
    const errors = await errorsOf(res)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(message)
  })

  it('409 for the same minifiedUrl and appVersion without overwrite=true; overwrite=true replaces it', async () => {
    const fields = valid()
    expect((await post('/sourcemap', uploadForm(fields, { sourceMap: MAP }))).status).toBe(200)
    const again = await post('/sourcemap', uploadForm(fields, { sourceMap: MAP }))
    expect(again.status).toBe(409)
    expect(await errorsOf(again)).toEqual([`minifiedUrl: a source map for "${fields.minifiedUrl}" with appVersion "2.0.0" was uploaded already; to replace it, upload again with overwrite=true (the CLI's --overwrite; in the dashboard, tick "Replace an earlier upload")`])
    // Another version of the same URL is another upload.
    expect((await post('/sourcemap', uploadForm({ ...fields, appVersion: '2.0.1' }, { sourceMap: MAP }))).status).toBe(200)
    expect((await post('/sourcemap', uploadForm({ ...fields, overwrite: 'true' }, { sourceMap: MAP }))).status).toBe(200)
    expect((await uploadsOf()).filter((upload) => upload.minifiedUrl === fields.minifiedUrl)).toHaveLength(2)
  })

  it('413 while streaming a file past the limit, closing the connection', async () => {
    const small = withFileLimit(1024)
    const res = await small.app.request('/sourcemap', { method: 'POST', body: uploadForm({ apiKey, minifiedUrl: 'https://x/a.js' }, { sourceMap: MAP }) })
    expect(res.status).toBe(413)
    expect(res.headers.get('Connection')).toBe('close')
    expect(await errorsOf(res)).toEqual(['sourceMap is larger than the limit of 1024 bytes a file (ERRATA_MAX_SOURCE_MAP_BYTES)'])
    const total = await small.app.request('/sourcemap', {
      method: 'POST',
      body: uploadForm({ apiKey, minifiedUrl: 'https://x/a.js' }, Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((name) => [`https://x/${name}.js`, 'x'.repeat(1000)]))),
    })
    expect(total.status).toBe(413)
    expect(await errorsOf(total)).toEqual(['the upload is larger than the limit of 4096 bytes for all its files'])
  })

  it('413 for a value sent as text (no filename) past 1 MiB, naming the way to send it as a file; 400 for a field name past 2048 characters', async () => {
    const text = await post('/sourcemap', uploadForm({ ...valid(), sourceMap: `{"version":3,"mappings":"${'A'.repeat(1024 * 1024)}"}` }))
    expect(text.status).toBe(413)
    expect(await errorsOf(text)).toEqual([
      "sourceMap: a value sent as text (a part without a filename) is larger than the limit of 1048576 bytes; send it as a file (with curl: -F 'sourceMap=@path')",
    ])
    const name = `https://cdn.example.com/${'a'.repeat(2048)}.js`
    const named = await post('/sourcemap', uploadForm(valid(), { sourceMap: MAP, [name]: 'export const x = 1\n' }))
    expect(named.status).toBe(400)
    expect(await errorsOf(named)).toEqual([`a field's name is longer than 2048 characters ("${name.slice(0, 40)}…")`])
  })

  it('413 over real HTTP for a chunked body past the limit, read to the end so the client sees the answer', async () => {
    const smallServer = await listen(withFileLimit(64 * 1024))
    try {
      const boundary = 'errata-boundary'
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${smallServer.url}/sourcemap`, { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="apiKey"\r\n\r\n${apiKey}\r\n`)
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="sourceMap"; filename="/tmp/big.map"\r\n\r\n`)
        for (let i = 0; i < 40; i++) req.write('x'.repeat(8192))
        req.end(`\r\n--${boundary}--\r\n`)
      })
      expect(status).toBe(413)
    } finally {
      await smallServer.close()
    }
  })
})

describe('POST /react-native-source-map refusals', () => {
  const valid = () => ({ apiKey, platform: 'ios', appVersion: '3.0.0', appBundleVersion: `${Math.floor(Math.random() * 1e9)}`, overwrite: 'false' })

  it('stores an iOS upload with its bundle version', async () => {
    const fields = valid()
    const res = await post('/react-native-source-map', uploadForm(fields, { sourceMap: MAP, bundle: MINIFIED }))
    expect(res.status).toBe(200)
    expect((await uploadsOf()).filter((upload) => upload.appVersionCode === fields.appBundleVersion)).toMatchObject([{ platform: 'ios', kind: 'react_native', dev: false }])
    const again = await post('/react-native-source-map', uploadForm(fields, { sourceMap: MAP, bundle: MINIFIED }))
    expect(again.status).toBe(409)
    expect(await errorsOf(again)).toEqual([
      `platform: a release ios source map with appVersion "3.0.0", version code "${fields.appBundleVersion}" was uploaded already; to replace it, upload again with overwrite=true (the CLI's --overwrite; in the dashboard, tick "Replace an earlier upload")`,
    ])
  })

  it('400 naming platform and dev when they are missing or wrong', async () => {
    const { platform: _omit, ...rest } = valid()
    const missing = await post('/react-native-source-map', uploadForm(rest, { sourceMap: MAP }))
    expect(missing.status).toBe(400)
    expect(await errorsOf(missing)).toEqual(['platform: missing; send android or ios'])
    const wrong = await post('/react-native-source-map', uploadForm({ ...rest, platform: 'windows', dev: 'sometimes' }, { sourceMap: MAP }))
    expect(wrong.status).toBe(400)
    expect(await errorsOf(wrong)).toEqual(['platform: must be android or ios, not "windows"', 'dev: must be true or false, not "sometimes"'])
  })

  it('422 Nothing to upload for a bundle sent as a path', async () => {
    const res = await post('/react-native-source-map', uploadForm({ ...valid(), bundle: 'build/index.android.bundle' }, { sourceMap: MAP }))
    expect(res.status).toBe(422)
    expect((await errorsOf(res))[0]).toBe('Nothing to upload')
  })

  it('401 for an unknown apiKey', async () => {
    const res = await post('/react-native-source-map', uploadForm({ ...valid(), apiKey: 'a'.repeat(32) }, { sourceMap: MAP }))
    expect(res.status).toBe(401)
    expect(await errorsOf(res)).toEqual(['apiKey: no project has this API key'])
  })
})
