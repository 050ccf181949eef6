import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { Api, createProject, notify, shoot, shootNarrow, signIn, watchPage } from './support.ts'

// The js-app fixture: a real esbuild bundle of src/index.js and src/util.js with its map.
const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/source-maps/js-app/dist/${name}`, import.meta.url))
const MINIFIED = readFileSync(fixture('app.min.js'), 'utf8')
const MAP = readFileSync(fixture('app.min.js.map'), 'utf8')
const SCRIPT_URL = 'https://cdn.example.com/assets/app.min.js'
const PAGE_URL = 'https://shop.example.com/checkout'
const APP_VERSION = '1.2.3'

/**
 * The crash as the browser notifier reports it: the minified bundle really runs (V8, as in
 * Chromium) under its public URL, and the frames of its stack that point into it are sent.
 */
function crashFromMinifiedBundle(): Record<string, unknown> {
  let error: Error | undefined
  const context = vm.createContext({})
  vm.runInContext(MINIFIED, context, { filename: SCRIPT_URL })
  try {
    // The shop page's inline script calls into the bundle.
    vm.runInContext(`app.checkout({ items: [{ name: 'pen', quantity: 1 }] })`, context, { filename: PAGE_URL })
  } catch (thrown) {
    error = thrown as Error
  }
  if (!error?.stack) throw new Error('the fixture bundle should throw')
  const stacktrace = error.stack
    .split('\n')
    .map((line) => /^\s*at (?:(.+?) \()?(https:\/\/[^\s)]+):(\d+):(\d+)\)?$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, method, file, line, column]) => ({ file, method: method ?? '', lineNumber: Number(line), columnNumber: Number(column) }))
  expect(stacktrace.filter((frame) => frame.file === SCRIPT_URL).length, error.stack).toBe(3)
  return {
    payloadVersion: '4',
    exceptions: [{ errorClass: error.name, message: error.message, type: 'browserjs', stacktrace }],
    severity: 'error',
    unhandled: true,
    severityReason: { type: 'unhandledException' },
    app: { version: APP_VERSION, releaseStage: 'production' },
    device: { time: new Date().toISOString(), osName: 'Windows', browserName: 'Chrome', browserVersion: '131.0' },
    request: { url: PAGE_URL },
    context: '/checkout',
  }
}

interface ApiEventSummary {
  id: string
  error_id: string
}

/** The project's newest event's page. */
async function newestEventPath(api: Api, projectId: string): Promise<string> {
  const [event] = await api.get<ApiEventSummary[]>(`/projects/${projectId}/events?per_page=1`)
  expect(event).toBeDefined()
  return `/projects/${projectId}/errors/${event!.error_id}/events/${event!.id}`
}

/** Drops files on the dropzone as a drag from the desktop does: a `drop` event carrying them. */
async function dropFiles(page: Page, files: { name: string; text: string }[]) {
  const dataTransfer = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer()
    for (const file of list) transfer.items.add(new File([file.text], file.name))
    return transfer
  }, files)
  // One handle: the area's name changes while files are dragged over it.
  const zone = await page.getByRole('group', { name: /^Drop a \.map file/ }).elementHandle()
  await zone!.dispatchEvent('dragenter', { dataTransfer })
  await zone!.dispatchEvent('drop', { dataTransfer })
}

async function shootBothSchemes(page: Page, name: string) {
  await shoot(page, name)
  await shootNarrow(page, name)
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, `${name}-dark`)
  await shootNarrow(page, `${name}-dark`)
  await page.emulateMedia({ colorScheme: 'light' })
}

async function sendCrash(request: APIRequestContext, apiKey: string) {
  await notify(request, apiKey, [crashFromMinifiedBundle()])
}

test('drop a source map on the project page, then a crash in the minified bundle reads as the source', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'Web shop')

  // Before any map: the event says which map is missing, and links to the upload page.
  await sendCrash(request, apiKey)
  await signIn(page)
  await page.goto(await newestEventPath(api, projectId))
  await expect(page.getByText(`no source map for ${SCRIPT_URL}, version ${APP_VERSION}`)).toBeVisible()
  await shootBothSchemes(page, 'source-maps-missing')
  await page.getByRole('link', { name: `Upload a source map for ${SCRIPT_URL}, version ${APP_VERSION}` }).click()

  // The upload page, URL and version filled in from the event.
  await expect(page.getByRole('heading', { name: 'Web shop: source maps & symbols' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Source maps & symbols' })).toHaveAttribute('aria-current', 'page')
  await expect(page.getByRole('textbox', { name: 'Minified file URL' })).toHaveValue(SCRIPT_URL)
  await expect(page.getByRole('textbox', { name: 'App version' })).toHaveValue(APP_VERSION)
  await expect(page.getByText('No source maps yet')).toBeVisible()

  // A file that is not a map is refused here, before any upload.
  await dropFiles(page, [{ name: 'app.min.js.map', text: '<!doctype html><p>Not found</p>' }])
  await expect(page.getByRole('alert')).toContainText('app.min.js.map is not JSON')
  await expect(page.getByRole('button', { name: 'Upload source map' })).toBeDisabled()

  await dropFiles(page, [
    { name: 'app.min.js.map', text: MAP },
    { name: 'app.min.js', text: MINIFIED },
  ])
  const files = page.getByRole('list', { name: 'Files to upload' })
  await expect(files.getByText('source map', { exact: true })).toBeVisible()
  await expect(files.getByText('minified file', { exact: true })).toBeVisible()
  await expect(page.getByText('The map names 2 sources, all with their text.')).toBeVisible()
  await shootBothSchemes(page, 'source-maps-form')

  await page.getByRole('button', { name: 'Upload source map' }).click()
  await expect(page.getByRole('form', { name: 'Upload a source map' }).getByRole('status')).toContainText(
    `app.min.js.map uploaded for ${SCRIPT_URL}, version ${APP_VERSION}`,
  )
  const uploads = page.getByRole('list', { name: 'Uploaded source maps' })
  const upload = uploads.getByRole('listitem', { name: `${SCRIPT_URL}, version ${APP_VERSION}` })
  await expect(upload).toContainText('2 sources, minified file')
  await expect(upload).toContainText('0 events mapped')
  // Uploaded from the dashboard: recorded as the signed-in user's, not the API key's.
  const me = await api.get<{ name: string | null; email: string }>('/user')
  await expect(upload).toContainText(`by ${me.name ?? me.email}`)

  // The same upload again is refused by the server; the form says which box replaces it.
  await dropFiles(page, [{ name: 'app.min.js.map', text: MAP }])
  await page.getByRole('button', { name: 'Upload source map' }).click()
  await expect(page.getByRole('alert')).toContainText(
    `A source map for ${SCRIPT_URL}, version ${APP_VERSION}, was uploaded already. To replace it, tick “Replace an earlier upload for this URL and version” and upload again.`,
  )
  await shootBothSchemes(page, 'source-maps-refusal')

  // The same crash now: original files, lines, functions and code.
  await sendCrash(request, apiKey)
  await page.goto(await newestEventPath(api, projectId))
  const trace = page.getByRole('list', { name: 'Stack frames of TypeError' })
  await expect(trace.getByRole('listitem', { name: /^In-project frame 1: .* at src\/util\.js:5:\d+$/ })).toBeVisible()
  await expect(trace.getByRole('listitem', { name: /computeTotal at src\/util\.js:3:\d+$/ })).toBeVisible()
  await expect(trace.getByRole('listitem', { name: /checkout at src\/index\.js:4:\d+$/ })).toBeVisible()
  await expect(page.getByLabel(/^Code around src\/util\.js:5:/)).toContainText('throw new TypeError(`item ${item.name} has no price`);')
  await expect(page.getByText(/no source map for/)).toHaveCount(0)
  await shootBothSchemes(page, 'source-maps-event')

  // The raw frames, as the notifier sent them; the choice is in the URL.
  await page.getByRole('group', { name: 'Stack frames' }).getByRole('button', { name: 'Minified' }).click()
  const raw = page.getByRole('list', { name: 'Minified stack frames of TypeError' })
  await expect(raw.getByRole('listitem', { name: /frame 1: .* at https:\/\/cdn\.example\.com\/assets\/app\.min\.js:1:\d+$/ })).toBeVisible()
  await expect(raw.getByRole('listitem', { name: /frame 2: u at https:\/\/cdn\.example\.com\/assets\/app\.min\.js:1:\d+$/ })).toBeVisible()
  await expect(page).toHaveURL(/[?&]frames=minified/)
  await shootBothSchemes(page, 'source-maps-event-minified')
  await page.getByRole('button', { name: 'Original' }).click()
  await expect(trace).toBeVisible()

  // The upload counts the event it mapped.
  await page.goto(`/projects/${projectId}/source-maps`)
  await expect(upload).toContainText('1 event mapped')
  expect(watched.pageErrors).toEqual([])
})

test('an error whose events came before their map says so, and merges into the error the mapped crash groups as', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'Late maps')
  await sendCrash(request, apiKey)
  const [unmapped] = await api.get<{ id: string }[]>(`/projects/${projectId}/errors`)

  // The map arrives after the first crash; the same crash now groups by its original frames.
  const upload = await request.post('/sourcemap', {
    multipart: {
      apiKey,
      appVersion: APP_VERSION,
      minifiedUrl: SCRIPT_URL,
      sourceMap: { name: 'app.min.js.map', mimeType: 'application/json', buffer: Buffer.from(MAP) },
      minifiedFile: { name: 'app.min.js', mimeType: 'application/javascript', buffer: Buffer.from(MINIFIED) },
    },
  })
  expect(upload.status(), await upload.text()).toBe(200)
  await sendCrash(request, apiKey)
  const errors = await api.get<{ id: string }[]>(`/projects/${projectId}/errors`)
  const mapped = errors.find((error) => error.id !== unmapped!.id)!
  expect(mapped).toBeDefined()

  await signIn(page)
  await page.goto(`/projects/${projectId}/errors/${unmapped!.id}`)
  const note = page.getByRole('note', { name: 'Source map uploaded' })
  await expect(note).toContainText('A source map for these frames has been uploaded since these events arrived. New events group as TypeError')
  await expect(note.getByRole('link', { name: 'TypeError' })).toHaveAttribute('href', `/projects/${projectId}/errors/${mapped.id}`)
  await shootBothSchemes(page, 'source-maps-remapped')

  await note.getByRole('button', { name: 'Merge into that error…' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Merge into that error' }).click()
  await expect(page).toHaveURL(new RegExp(`/errors/${mapped.id}$`))
  const merged = page.getByRole('region', { name: 'Merged into this error' })
  await expect(merged.getByRole('link', { name: 'TypeError' })).toHaveAttribute('href', `/projects/${projectId}/errors/${unmapped!.id}`)
  await expect(page.getByRole('note', { name: 'Source map uploaded' })).toHaveCount(0)
  expect(watched.pageErrors).toEqual([])
})
