import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import vm from 'node:vm'
import Bugsnag from '@bugsnag/node'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StackFrame } from '../../contract/events.ts'
import type { SourceMap } from '../../contract/source-maps.ts'
import { newId } from '../db/ids.ts'
import { sourceMapFiles, sourceMaps } from '../db/schema.ts'
import type { NormalizedEvent } from '../ingest/payload/event-row.ts'
import { normalizeEvent } from '../ingest/process/normalize.ts'
import { notifyPayloadSchema } from '../ingest/payload/payload-schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { JS_APP_DIR, readJsApp, runSourceMapsCli, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, listen, type TestContext } from '../test-support/test-app.ts'
import { parseAllowList } from '../outbound/allow-list.ts'
import type { SymbolicationEvent } from './frame-targets.ts'
import { JavaScriptSymbolicator } from './javascript.ts'

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let seeded: SeededProject
let symbolicator: JavaScriptSymbolicator

const BROWSER_URL = 'https://cdn.example.com/assets/app.min.js'
const UTIL_SOURCE = readJsApp('src/util.js').split('\n')

beforeAll(async () => {
  ctx = await createTestContext()
  server = await listen(ctx)
  seeded = await seedProject(ctx, { user: 'Symbolicator', organization: 'Maps', project: 'Checkout', type: 'node' })
  const key = seeded.project.api_key
  const common = ['--api-key', key, '--app-version', '1.2.3', '--endpoint', server.url]
  for (const args of [
    ['upload-browser', '--directory', 'dist', '--base-url', 'https://cdn.example.com/assets'],
    ['upload-node', '--source-map', 'dist-node/app.min.js.map', '--bundle', 'dist-node/app.min.js'],
    ['upload-react-native', '--platform', 'android', '--app-version-code', '42', '--source-map', 'dist/app.min.js.map', '--bundle', 'dist/app.min.js'],
  ]) {
    const result = await runSourceMapsCli([...args, ...common])
    if (result.code !== 0) throw new Error(`the CLI failed: ${result.output}`)
  }
  symbolicator = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger })
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
})

/** A notifier event as the ingestion pipeline holds it before grouping. */
function normalized(event: Record<string, unknown>, notifier: Record<string, unknown>): NormalizedEvent {
  const payload = notifyPayloadSchema.parse({ payloadVersion: '4', notifier, events: [event] })
  return normalizeEvent(payload.events[0]!, payload.notifier)
}

function batchItem(event: NormalizedEvent, receivedAt = new Date()): SymbolicationEvent {
  return { id: newId(), projectId: seeded.project.id, receivedAt, event }
}

/** V8 stack frames as the Bugsnag notifiers send them (1-based lines and columns). */
function framesOf(error: Error): Record<string, unknown>[] {
  return (error.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => /^\s*at (?:(.+?) \()?(.+):(\d+):(\d+)\)?$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ method: match[1], file: match[2], lineNumber: Number(match[3]), columnNumber: Number(match[4]) }))
}

/**
 * Runs the esbuild browser bundle as if loaded from BROWSER_URL, and returns the stack of
 * checkout()'s TypeError; the page calls it from an inline script (its frames name the page).
 */
function browserError(): Error {
  const context = vm.createContext({})
  vm.runInContext(readJsApp('dist/app.min.js'), context, { filename: BROWSER_URL })
  try {
    vm.runInContext('app.checkout({ items: [{ name: "hat" }] })', context, { filename: 'https://shop.example.com/checkout' })
  } catch (err) {
    return err as Error
  }
  throw new Error('checkout() did not throw')
}

function browserEvent(appVersion: string | null, frames = framesOf(browserError())): NormalizedEvent {
  return normalized(
    {
      exceptions: [{ errorClass: 'TypeError', message: 'item hat has no price', type: 'browserjs', stacktrace: frames }],
      app: { releaseStage: 'production', ...(appVersion === null ? {} : { version: appVersion }), type: 'browser' },
      device: { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36' },
    },
    { name: 'Bugsnag JavaScript', version: '9.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
  )
}

/** The frames of util.js's computeTotal as the esbuild map gives them. */
function expectUtilFrames(frames: StackFrame[], minifiedFile: string) {
  const [thrown, computeTotal, checkout] = frames
  expect(thrown).toMatchObject({ file: 'src/util.js', line: 5, method: null, in_project: true })
  expect(thrown!.code).toEqual(Object.fromEntries([2, 3, 4, 5, 6, 7, 8].map((n) => [String(n), UTIL_SOURCE[n - 1]])))
  expect(thrown!.code!['5']).toContain("throw new TypeError(`item ${item.name} has no price`)")
  expect(thrown!.minified).toMatchObject({ file: minifiedFile, line: 1, method: null })
  expect(computeTotal).toMatchObject({ file: 'src/util.js', line: 3, method: 'computeTotal', in_project: true })
  expect(computeTotal!.minified).toMatchObject({ file: minifiedFile, line: 1, method: 'u' })
  expect(checkout).toMatchObject({ file: 'src/index.js', line: 4, method: 'checkout', in_project: true })
  expect(checkout!.code!['4']).toBe('  const total = computeTotal(cart.items);')
}

describe('after the real CLI uploads', () => {
  it("maps the real @bugsnag/node client's event: original file, line, method and code context (upload-node)", async () => {
    const bodies: unknown[] = []
    const capture: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        if (req.url === '/notify') bodies.push(JSON.parse(body))
        res.end('OK')
      })
    })
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve))
    const captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`
    try {
      Bugsnag.start({
        apiKey: seeded.project.api_key,
        endpoints: { notify: `${captureUrl}/notify`, sessions: `${captureUrl}/sessions` },
        projectRoot: JS_APP_DIR,
        appVersion: '1.2.3',
        autoDetectErrors: false,
        autoTrackSessions: false,
        logger: null,
      })
      const app = createRequire(import.meta.url)(`${JS_APP_DIR}dist-node/app.min.js`) as { checkout(cart: unknown): unknown }
      let thrown: Error | undefined
      try {
        app.checkout({ items: [{ name: 'hat' }] })
      } catch (err) {
        thrown = err as Error
      }
      await new Promise<void>((resolve, reject) => Bugsnag.notify(thrown!, undefined, (err) => (err ? reject(err) : resolve())))
    } finally {
      await new Promise((resolve) => capture.close(resolve))
    }
    const payload = bodies[0] as { notifier: unknown; events: Record<string, unknown>[] }
    const event = normalized(payload.events[0]!, payload.notifier as Record<string, unknown>)
    const sent = event.payload.exceptions[0]!.stacktrace
    expect(sent.slice(0, 3).map((frame) => frame.file)).toEqual(['dist-node/app.min.js', 'dist-node/app.min.js', 'dist-node/app.min.js'])

    await symbolicator.symbolicate([batchItem(event)])

    const frames = event.payload.exceptions[0]!.stacktrace
    expectUtilFrames(frames, 'dist-node/app.min.js')
    expect(frames[2]!.minified!.method).toBe('Object.i')
    // The test file calling checkout() is no minified file: not missing a map, and left as sent.
    expect(frames[3]).toEqual(sent[3])
    expect(event.payload.symbolication).toEqual({ status: 'mapped', mapped_frames: 3, missing: [], errors: [] })
    const nodeUpload = (await ctx.deps.database.db.select().from(sourceMaps).where(eq(sourceMaps.minifiedUrl, 'dist-node/app.min.js')))[0]!
    expect(frames[0]!.source_map_id).toBe(nodeUpload.id)
  })

  it('maps a browser event by its script URL and app version (upload-browser), and counts the events each upload mapped', async () => {
    const events = [browserEvent('1.2.3'), browserEvent('1.2.3')]
    await symbolicator.symbolicate(events.map((event) => batchItem(event)))
    for (const event of events) {
      expectUtilFrames(event.payload.exceptions[0]!.stacktrace, BROWSER_URL)
      expect(event.payload.symbolication).toEqual({ status: 'mapped', mapped_frames: 3, missing: [], errors: [] })
    }
    await symbolicator.flushCounts()
    const res = await ctx.request(`/api/projects/${seeded.project.id}/source_maps`, { token: seeded.user.token })
    const browser = ((await res.json()) as SourceMap[]).find((map) => map.minified_url === BROWSER_URL)!
    expect(browser.events_mapped).toBe(2)
  })

  it('maps a React Native event by platform and version code, whatever its bundle URL (upload-react-native)', async () => {
    const frames = framesOf(browserError()).map((frame) => (frame.file === BROWSER_URL ? { ...frame, file: 'index.android.bundle' } : frame))
    const rnEvent = (versionCode: number) =>
      normalized(
        {
          exceptions: [{ errorClass: 'TypeError', message: 'item hat has no price', type: 'reactnativejs', stacktrace: frames }],
          app: { version: '1.2.3', versionCode, releaseStage: 'production' },
          device: { osName: 'android', osVersion: '14' },
        },
        { name: 'Bugsnag React Native', version: '8.0.0' },
      )
    const matching = rnEvent(42)
    const otherBuild = rnEvent(41)
    await symbolicator.symbolicate([batchItem(matching), batchItem(otherBuild)])
    expectUtilFrames(matching.payload.exceptions[0]!.stacktrace, 'index.android.bundle')
    expect(otherBuild.payload.exceptions[0]!.stacktrace[0]!.file).toBe('index.android.bundle')
    expect(otherBuild.payload.symbolication?.status).toBe('missing')
    expect(otherBuild.payload.symbolication?.missing).toContainEqual({ url: 'index.android.bundle', app_version: '1.2.3', platform: 'android', app_version_code: '41' })
  })
})

describe('matching rules against stored uploads', () => {
  it('keeps an event with no matching map as it came and names the map to upload', async () => {
    const event = browserEvent('9.9.9')
    const before = structuredClone(event.payload.exceptions)
    await symbolicator.symbolicate([batchItem(event)])
    expect(event.payload.exceptions).toEqual(before)
    expect(event.payload.symbolication).toEqual({ status: 'missing', mapped_frames: 0, missing: [{ url: BROWSER_URL, app_version: '9.9.9' }], errors: [] })
    // Without an app version only uploads made without one apply (rule 3).
    const versionless = browserEvent(null)
    await symbolicator.symbolicate([batchItem(versionless)])
    expect(versionless.payload.symbolication?.missing).toEqual([{ url: BROWSER_URL, app_version: null }])
  })

  it('never maps an event received before the upload (rule 6)', async () => {
    const early = browserEvent('1.2.3')
    await symbolicator.symbolicate([batchItem(early, new Date('2020-01-01T00:00:00Z'))])
    expect(early.payload.symbolication?.status).toBe('missing')
    expect(early.payload.exceptions[0]!.stacktrace[0]!.file).toBe(BROWSER_URL)
  })

  it('uses the newest upload made before the event (rules 4 and 6), an exact URL or a wildcard alike', async () => {
    const key = seeded.project.api_key
    const url = 'https://cdn.example.com/v2/app.min.js'
    const exact = await ctx.request('/sourcemap', { method: 'POST', body: uploadForm({ apiKey: key, appVersion: '5.0.0', minifiedUrl: url }, { sourceMap: readJsApp('dist/app.min.js.map') }) })
    expect(exact.status).toBe(200)
    const terser = readTerser()
    const wildcard = await ctx.request('/sourcemap', {
      method: 'POST',
      body: uploadForm({ apiKey: key, appVersion: '5.0.0', minifiedUrl: 'https://cdn.example.com/v2/*' }, { sourceMap: terser.map, minifiedFile: terser.minified }),
    })
    expect(wildcard.status).toBe(200)
    const db = ctx.deps.database.db
    await db.update(sourceMaps).set({ uploadedAt: new Date('2025-01-01T10:00:00Z') }).where(eq(sourceMaps.minifiedUrl, url))
    await db.update(sourceMaps).set({ uploadedAt: new Date('2025-01-01T11:00:00Z') }).where(eq(sourceMaps.minifiedUrl, 'https://cdn.example.com/v2/*'))

    const frames = [{ file: url, method: 'r', lineNumber: 1, columnNumber: 126 }]
    const between = browserEvent('5.0.0', frames)
    const after = browserEvent('5.0.0', frames)
    await symbolicator.symbolicate([batchItem(between, new Date('2025-01-01T10:30:00Z')), batchItem(after, new Date('2025-01-01T12:00:00Z'))])
    expect(between.payload.exceptions[0]!.stacktrace[0]!.file).toMatch(/^src\/(index|util)\.js$/)
    expect(between.payload.exceptions[0]!.stacktrace[0]!.source_map_id).not.toBe(after.payload.exceptions[0]!.stacktrace[0]!.source_map_id)
    expect(after.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'src/index.js', line: 5, method: 'computeRatio' })
  })

  it('marks an event whose map cannot be read, and goes on with the batch', async () => {
    const id = newId()
    const db = ctx.deps.database.db
    await db.insert(sourceMaps).values({
      id,
      projectId: seeded.project.id,
      kind: 'js',
      minifiedUrl: 'https://cdn.example.com/broken.js',
      appVersion: '1.2.3',
      sizeBytes: 9,
      storedBytes: 9,
      uploadedAt: new Date('2024-01-01T00:00:00Z'),
    })
    await db.insert(sourceMapFiles).values({ sourceMapId: id, role: 'map', sizeBytes: 9, content: gzipSync('not json!') })
    const broken = browserEvent('1.2.3', [{ file: 'https://cdn.example.com/broken.js', lineNumber: 1, columnNumber: 10 }])
    const fine = browserEvent('1.2.3')
    await symbolicator.symbolicate([batchItem(broken), batchItem(fine)])
    expect(broken.payload.symbolication).toEqual({
      status: 'failed',
      mapped_frames: 0,
      missing: [],
      errors: [{ url: 'https://cdn.example.com/broken.js', message: expect.stringMatching(/^the source map is not JSON/) }],
    })
    expect(fine.payload.symbolication?.status).toBe('mapped')
  })

  it('maps through a map stored whole, its sourcesContent inline, as uploads were stored before it was split off', async () => {
    const id = newId()
    const map = readJsApp('dist/app.min.js.map')
    await ctx.deps.database.db.insert(sourceMaps).values({
      id,
      projectId: seeded.project.id,
      kind: 'js',
      minifiedUrl: BROWSER_URL,
      appVersion: '5.0.0',
      sizeBytes: map.length,
      storedBytes: map.length,
      uploadedAt: new Date('2024-01-01T00:00:00Z'),
    })
    await ctx.deps.database.db.insert(sourceMapFiles).values([
      { sourceMapId: id, role: 'map', sizeBytes: map.length, content: gzipSync(map) },
      { sourceMapId: id, role: 'minified', sizeBytes: 1, content: gzipSync(readJsApp('dist/app.min.js')) },
    ])
    const event = browserEvent('5.0.0')
    await symbolicator.symbolicate([batchItem(event)])
    expectUtilFrames(event.payload.exceptions[0]!.stacktrace, BROWSER_URL)
  })

  it('reads a source stored apart from its map when a frame needs it', async () => {
    // Uploaded by the CLI in beforeAll: its map's sourcesContent was split off (role source_content).
    const event = browserEvent('1.2.3')
    const fresh = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger })
    await fresh.symbolicate([batchItem(event)])
    expectUtilFrames(event.payload.exceptions[0]!.stacktrace, BROWSER_URL)
    const again = browserEvent('1.2.3')
    await fresh.symbolicate([batchItem(again)])
    expect(again.payload.exceptions[0]!.stacktrace[0]!.code).toEqual(event.payload.exceptions[0]!.stacktrace[0]!.code)
  })

  it('counts a cached map again once a batch has read more of it', async () => {
    const frames = framesOf(browserError())
    // The thrown frame reads util.js's source; the whole stack reads index.js's too (both stored apart).
    const fresh = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger })
    await fresh.symbolicate([batchItem(browserEvent('1.2.3', frames.slice(0, 1)))])
    const first = fresh.cacheStats()
    await fresh.symbolicate([batchItem(browserEvent('1.2.3', frames))])
    const second = fresh.cacheStats()
    expect(second.maps).toBe(1)
    expect(second.bytes).toBeGreaterThan(first.bytes)
    await fresh.symbolicate([batchItem(browserEvent('1.2.3', frames))])
    expect(fresh.cacheStats()).toEqual(second)
    // A bound that held the map as first used: once it holds more, it is dropped, and events still map.
    const bounded = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger, cacheBytes: first.bytes })
    await bounded.symbolicate([batchItem(browserEvent('1.2.3', frames.slice(0, 1)))])
    expect(bounded.cacheStats()).toEqual(first)
    const event = browserEvent('1.2.3', frames)
    await bounded.symbolicate([batchItem(event)])
    expectUtilFrames(event.payload.exceptions[0]!.stacktrace, BROWSER_URL)
    expect(bounded.cacheStats()).toEqual({ maps: 0, bytes: 0 })
  })

  it('maps through an uploaded index map, with projectRoot stripped and sources from upload fields', async () => {
    const terser = JSON.parse(readTerser().map)
    const rooted = { ...terser, sources: terser.sources.map((source: string) => `/builds/shop/${source}`), sourcesContent: undefined }
    const indexMap = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: rooted }] }
    const res = await ctx.request('/sourcemap', {
      method: 'POST',
      body: uploadForm(
        { apiKey: seeded.project.api_key, appVersion: '7.0.0', minifiedUrl: 'https://cdn.example.com/indexed.js', projectRoot: '/builds/shop' },
        { sourceMap: JSON.stringify(indexMap), '/builds/shop/src/math.js': 'function divide(a, b) {\n  if (b === 0) {\n    throw new Error("x");\n  }\n}\n' },
      ),
    })
    expect(res.status).toBe(200)
    const event = browserEvent('7.0.0', [{ file: 'https://cdn.example.com/indexed.js', method: 'n', lineNumber: 1, columnNumber: 33 }])
    await symbolicator.symbolicate([batchItem(event)])
    expect(event.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'src/math.js', line: 3, column: 11, in_project: true, code: { '3': '    throw new Error("x");' } })
  })

  it('changes nothing, and rejects, when the database cannot be reached (the batch is retried)', async () => {
    const lost = Object.assign(new Error('connection lost'), { code: 'ECONNRESET' })
    const failing = new JavaScriptSymbolicator({
      database: { db: { execute: () => Promise.reject(lost) } as never },
      logger: ctx.deps.logger,
    })
    const event = browserEvent('1.2.3')
    const before = structuredClone(event.payload)
    await expect(failing.symbolicate([batchItem(event)])).rejects.toThrow('connection lost')
    expect(event.payload).toEqual(before)
  })

  it('leaves the frames as sent, with the reason, when symbolication fails unexpectedly: the event is never held back', async () => {
    const failing = new JavaScriptSymbolicator({
      database: { db: { execute: () => Promise.reject(new RangeError('Invalid array length')) } as never },
      logger: ctx.deps.logger,
    })
    const event = browserEvent('1.2.3')
    const frames = structuredClone(event.payload.exceptions[0]!.stacktrace)
    await failing.symbolicate([batchItem(event)])
    expect(event.payload.exceptions[0]!.stacktrace).toEqual(frames)
    expect(event.payload.symbolication).toEqual({
      status: 'failed',
      mapped_frames: 0,
      missing: [],
      errors: [{ url: BROWSER_URL, message: 'symbolication failed: Invalid array length' }],
    })
  })

  it('leaves events without JavaScript frames untouched', async () => {
    const event = normalized(
      { exceptions: [{ errorClass: 'SIGSEGV', type: 'c', stacktrace: [{ frameAddress: 1234, loadAddress: 1000, file: 'libcrash.so' }] }] },
      { name: 'Bugsnag Android' },
    )
    const before = structuredClone(event.payload)
    await symbolicator.symbolicate([batchItem(event)])
    expect(event.payload).toEqual(before)
    expect((await ctx.deps.database.db.execute(sql`SELECT 1 AS one`)) !== null).toBe(true)
  })
})

describe('fetching the minified file and its map by URL when none was uploaded (rule 7)', () => {
  let assets: Server
  let origin: string
  /** The paths the assets server was asked for. */
  const requested: string[] = []
  beforeAll(async () => {
    const map = JSON.parse(readJsApp('dist/app.min.js.map'))
    const { sourcesContent: _dropped, ...withoutContent } = map
    const files: Record<string, string> = {
      '/assets/app.min.js': readJsApp('dist/app.min.js'),
      '/assets/app.min.js.map': JSON.stringify(map),
      '/bare/app.min.js': readJsApp('dist/app.min.js'),
      '/bare/app.min.js.map': JSON.stringify(withoutContent),
      // The map's ../src/util.js, next to bare/.
      '/src/util.js': readJsApp('src/util.js'),
      '/src/index.js': readJsApp('src/index.js'),
      // A map of a few bytes whose section names line 100,000,000.
      '/far/app.min.js': 'a()\n//# sourceMappingURL=app.min.js.map',
      '/far/app.min.js.map': JSON.stringify({ version: 3, sections: [{ offset: { line: 100_000_000, column: 0 }, map: { version: 3, sources: ['far.js'], mappings: 'AAAA' } }] }),
      // The script a map was uploaded for without its minified file.
      '/deployed/app.8a1b3c.js': readJsApp('dist/app.min.js'),
    }
    assets = createServer((req, res) => {
      requested.push(req.url ?? '')
      const body = files[req.url ?? '']
      res.statusCode = body === undefined ? 404 : 200
      res.end(body ?? 'not found')
    })
    await new Promise<void>((resolve) => assets.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(assets.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => assets.close(resolve))
  })

  const eventAt = (url: string) => browserEvent('8.0.0', framesOf(browserError()).map((frame) => (frame.file === BROWSER_URL ? { ...frame, file: url } : frame)))

  it('maps from the sourceMappingURL of a file the allow-list lets it fetch, sources fetched for code context', async () => {
    const fetching = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger, fetch: { allow: parseAllowList('127.0.0.1') } })
    const embedded = eventAt(`${origin}/assets/app.min.js`)
    const bare = eventAt(`${origin}/bare/app.min.js`)
    await fetching.symbolicate([batchItem(embedded), batchItem(bare)])
    expectUtilFrames(embedded.payload.exceptions[0]!.stacktrace, `${origin}/assets/app.min.js`)
    expectUtilFrames(bare.payload.exceptions[0]!.stacktrace, `${origin}/bare/app.min.js`)
    expect(embedded.payload.exceptions[0]!.stacktrace[0]!.source_map_id).toBeUndefined()
    expect(bare.payload.symbolication).toEqual({ status: 'mapped', mapped_frames: 3, missing: [], errors: [] })
  })

  it('reads a fetched map whose section names line 100,000,000 without allocating per line', async () => {
    const fetching = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger, fetch: { allow: parseAllowList('127.0.0.1') } })
    const url = `${origin}/far/app.min.js`
    const event = browserEvent('8.0.0', [{ file: url, method: 'a', lineNumber: 100_000_001, columnNumber: 1 }])
    await fetching.symbolicate([batchItem(event)])
    expect(event.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ file: `${origin}/far/far.js`, line: 1, column: 1 })
    expect(fetching.cacheStats().bytes).toBeLessThan(1024 * 1024)
  })

  it("fetches the minified file of a map uploaded without one from the frame's script when an event arrives, so functions are named", async () => {
    const upload = await ctx.request('/sourcemap', {
      method: 'POST',
      body: uploadForm({ apiKey: seeded.project.api_key, appVersion: '8.1.0', minifiedUrl: `${origin}/deployed/app.*.js` }, { sourceMap: readJsApp('dist/app.min.js.map') }),
    })
    expect(upload.status).toBe(200)
    expect(requested).not.toContain('/deployed/app.8a1b3c.js')
    // computeTotal's frame alone: no calling frame to take its name from, only the minified file's definition.
    const computeTotal = framesOf(browserError())[1]!
    const eventAt = () => browserEvent('8.1.0', [{ ...computeTotal, file: `${origin}/deployed/app.8a1b3c.js` }])

    const fetching = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger, fetch: { allow: parseAllowList('127.0.0.1') } })
    const named = eventAt()
    await fetching.symbolicate([batchItem(named)])
    expect(requested).toContain('/deployed/app.8a1b3c.js')
    expect(named.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'src/util.js', line: 3, method: 'computeTotal', source_map_id: expect.any(String) })
    expect(named.payload.symbolication?.status).toBe('mapped')

    // Through the same address guard: a private address not allowed is not fetched; the frame is mapped all the same, named as sent.
    const guarded = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger, fetch: { allow: [] } })
    const unnamed = eventAt()
    await guarded.symbolicate([batchItem(unnamed)])
    expect(unnamed.payload.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'src/util.js', line: 3, method: 'u' })
    expect(unnamed.payload.symbolication?.status).toBe('mapped')
  })

  it('refuses a private address without the allow-list: the event misses its map and says why', async () => {
    const guarded = new JavaScriptSymbolicator({ database: ctx.deps.database, logger: ctx.deps.logger, fetch: { allow: [] } })
    const event = eventAt(`${origin}/assets/app.min.js`)
    await guarded.symbolicate([batchItem(event)])
    expect(event.payload.exceptions[0]!.stacktrace[0]!.file).toBe(`${origin}/assets/app.min.js`)
    expect(event.payload.symbolication).toEqual({
      status: 'missing',
      mapped_frames: 0,
      missing: [{ url: `${origin}/assets/app.min.js`, app_version: '8.0.0' }],
      errors: [{ url: `${origin}/assets/app.min.js`, message: `could not fetch ${origin}/assets/app.min.js: 127.0.0.1 is a loopback, link-local or private address (allow it with ERRATA_FETCH_ALLOW)` }],
    })
  })
})

function readTerser(): { map: string; minified: string } {
  const read = (name: string) => readJsApp(`../terser/${name}`)
  return { map: read('app.min.js.map'), minified: read('app.min.js') }
}
