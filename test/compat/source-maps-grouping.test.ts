// Grouping by mapped frames: the same crash from two builds of the same code, minified with
// different names under different file names, lands in two errors while its maps are missing and
// in one error once both builds' maps are uploaded. Real bundles (esbuild) run under V8 for their
// stacks; events and uploads go over real HTTP (POST /notify, POST /sourcemap).
//
// dist/ is the js-app bundle (src/index.js); dist-v2/ the next release, which also bundles
// src/release.js, so esbuild names the same functions differently:
//   esbuild src/entry-v2.js --bundle --minify --format=iife --global-name=app --sourcemap --outfile=dist-v2/app.min.js
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent } from '../../contract/events.ts'
import { loadConfig } from '../../server/config.ts'
import { seedProject, type SeededProject } from '../../server/test-support/seed.ts'
import { readJsApp, uploadForm } from '../../server/test-support/source-map-uploads.ts'
import { createTestContext, listen, type TestContext } from '../../server/test-support/test-app.ts'

interface Build {
  appVersion: string
  url: string
  dir: string
}
const BUILDS: Build[] = [
  { appVersion: '1.2.3', url: 'https://cdn.example.com/assets/app.8a1b3c.js', dir: 'dist' },
  { appVersion: '1.3.0', url: 'https://cdn.example.com/assets/app.f00d42.js', dir: 'dist-v2' },
]
const PAGE_URL = 'https://shop.example.com/checkout'

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let seeded: SeededProject

beforeAll(async () => {
  // The scripts' host is not reachable from tests: no fetching, only uploads apply.
  ctx = await createTestContext({ sourceMaps: { ...loadConfig({}).sourceMaps, fetch: false } })
  server = await listen(ctx)
  seeded = await seedProject(ctx, { user: 'Grouping', organization: 'Grouping Org', project: 'Shop', type: 'browser' })
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
})

/** The crash as a browser notifier reports it: the build's bundle runs under its URL, called from the page. */
function crashEvent(build: Build): Record<string, unknown> {
  const context = vm.createContext({})
  vm.runInContext(readJsApp(`${build.dir}/app.min.js`), context, { filename: build.url })
  let error: Error | undefined
  try {
    vm.runInContext(`app.checkout({ items: [{ name: 'pen', quantity: 1 }] })`, context, { filename: PAGE_URL })
  } catch (thrown) {
    error = thrown as Error
  }
  const stacktrace = (error?.stack ?? '')
    .split('\n')
    .map((line) => /^\s*at (?:(.+?) \()?(https:\/\/[^\s)]+):(\d+):(\d+)\)?$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, method, file, line, column]) => ({ file, method: method ?? '', lineNumber: Number(line), columnNumber: Number(column) }))
  return {
    exceptions: [{ errorClass: error!.name, message: error!.message, type: 'browserjs', stacktrace }],
    app: { version: build.appVersion },
    unhandled: true,
    severity: 'error',
  }
}

async function notify(event: Record<string, unknown>) {
  const response = await fetch(`${server.url}/notify`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': seeded.project.api_key, 'Bugsnag-Payload-Version': '4' },
    body: JSON.stringify({ apiKey: seeded.project.api_key, notifier: { name: 'Bugsnag JavaScript', version: '8.1.0', url: 'x' }, events: [event] }),
  })
  expect(response.status, await response.text()).toBe(200)
  await ctx.deps.ingestWriter.indexed()
}

async function newestEvent(): Promise<ErrorEvent> {
  const [summary] = (await (await ctx.request(`/api/projects/${seeded.project.id}/events?per_page=1`, { token: seeded.user.token })).json()) as ErrorEvent[]
  return (await (await ctx.request(`/api/projects/${seeded.project.id}/events/${summary!.id}`, { token: seeded.user.token })).json()) as ErrorEvent
}

async function crashFrom(build: Build): Promise<ErrorEvent> {
  await notify(crashEvent(build))
  return newestEvent()
}

describe('grouping by source-mapped frames', () => {
  it('groups the same crash from two builds with different minified names once both maps are uploaded', async () => {
    // The builds really differ: the function that calls computeTotal has another name in each.
    const [first, second] = BUILDS.map(crashEvent)
    const methods = (event: Record<string, unknown>) =>
      (event.exceptions as { stacktrace: { method: string }[] }[])[0]!.stacktrace.map((frame) => frame.method)
    expect(methods(first!)).not.toEqual(methods(second!))

    // No maps: each build's minified frames make an error of their own.
    const before = [await crashFrom(BUILDS[0]!), await crashFrom(BUILDS[1]!)]
    expect(before.map((event) => event.symbolication?.status)).toEqual(['missing', 'missing'])
    expect(before[0]!.error_id).not.toBe(before[1]!.error_id)

    for (const build of BUILDS) {
      const response = await fetch(`${server.url}/sourcemap`, {
        method: 'POST',
        body: uploadForm(
          { apiKey: seeded.project.api_key, appVersion: build.appVersion, minifiedUrl: build.url },
          { sourceMap: readJsApp(`${build.dir}/app.min.js.map`), minifiedFile: readJsApp(`${build.dir}/app.min.js`) },
        ),
      })
      expect(response.status, await response.text()).toBe(200)
    }

    // With both maps: the same original frames, so one error for both builds.
    const after = [await crashFrom(BUILDS[0]!), await crashFrom(BUILDS[1]!)]
    for (const [index, event] of after.entries()) {
      expect(event.symbolication).toMatchObject({ status: 'mapped', missing: [], errors: [] })
      const [thrownAt, computeTotal, checkout] = event.exceptions[0]!.stacktrace
      expect(thrownAt).toMatchObject({ file: 'src/util.js', line: 5, in_project: true })
      expect(thrownAt!.minified).toMatchObject({ file: BUILDS[index]!.url, line: 1 })
      expect(computeTotal).toMatchObject({ file: 'src/util.js', line: 3, method: 'computeTotal' })
      expect(checkout).toMatchObject({ file: 'src/index.js', line: 4, method: 'checkout' })
    }
    expect(after[0]!.exceptions[0]!.stacktrace[2]!.minified!.method).not.toBe(after[1]!.exceptions[0]!.stacktrace[2]!.minified!.method)
    expect(after[0]!.error_id).toBe(after[1]!.error_id)
    expect(before.map((event) => event.error_id)).not.toContain(after[0]!.error_id)

    const error = (await (await ctx.request(`/api/projects/${seeded.project.id}/errors/${after[0]!.error_id}`, { token: seeded.user.token })).json()) as {
      events: number
      grouping_reason: string
      app_versions: string[]
    }
    expect(error).toMatchObject({ events: 2, grouping_reason: 'in_project_frame' })
    expect([...error.app_versions].sort()).toEqual(['1.2.3', '1.3.0'])
  })
})
