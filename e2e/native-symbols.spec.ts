import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { framePointerStack, writeMinidump } from '../server/test-support/minidump-writer.ts'
import { Api, createProject, notify, shootAll, signIn, waitForIndexing, watchPage } from './support.ts'

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../test/fixtures/native/${name}`, import.meta.url)))
const SYM = fixture('libcrash.aarch64.sym')
const STRIPPED_SO = fixture('libcrash.aarch64.stripped.so')
const LIBCRASH_BUILD_ID = 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a'
const LIBCRASH_DEBUG_ID = '78E6C3C4C58290AE748762B6CCAF46F60'

/** The crash bugsnag-android's NDK plugin sends (test/fixtures/native/android-ndk-event.json). */
function ndkCrash(): Record<string, unknown> {
  const { exceptions } = JSON.parse(fixture('android-ndk-event.json').toString('utf8')) as { exceptions: unknown[] }
  return {
    payloadVersion: '4',
    exceptions,
    severity: 'error',
    unhandled: true,
    severityReason: { type: 'signal', attributes: { signalType: 'SIGSEGV' } },
    app: { version: '1.0', releaseStage: 'production', type: 'android' },
    device: { osName: 'android', osVersion: '14', manufacturer: 'Google', model: 'Pixel 8', time: new Date().toISOString() },
    metaData: {},
  }
}

/** An arm64 Android minidump whose crashing thread runs crash_here ← level_two in libcrash (as server/native/native.test.ts), with a second thread. */
function minidump(): Buffer {
  const base = 0x7000000000n
  const stack = framePointerStack('arm64', { base: 0x7ff0000000n, returnAddresses: [base + 0x16bcn, base + 0x16e0n] })
  const idle = framePointerStack('arm64', { base: 0x7fe0000000n, returnAddresses: [] })
  return writeMinidump({
    arch: 'arm64',
    os: 'android',
    modules: [{ name: '/data/app/com.example/lib/arm64/libcrash.so', base, size: 0x10000, buildId: LIBCRASH_BUILD_ID }],
    crashingThread: { id: 7, pc: base + 0x1698n, sp: stack.sp, fp: stack.fp, lr: base + 0x16bcn, stack: stack.stack },
    threads: [{ id: 8, pc: base + 0x16e0n, sp: idle.sp, fp: 0n, lr: 0n, stack: idle.stack }],
    exception: { code: 11, address: 0x10n },
  })
}

async function sendMinidump(request: APIRequestContext, apiKey: string, dump: Buffer): Promise<string> {
  const response = await request.post(`/minidump?api_key=${apiKey}`, {
    multipart: {
      upload_file_minidump: { name: 'crash.dmp', mimeType: 'application/octet-stream', buffer: dump },
      prod: 'Game',
      _version: '3.1.0',
    },
  })
  expect(response.status(), await response.text()).toBe(202)
  await waitForIndexing(request)
  return (await response.text()).trim()
}

/** Drops a file on a dropzone as a drag from the desktop does: a `drop` event carrying it. */
async function dropFile(page: Page, zoneName: RegExp, file: { name: string; text: string }) {
  const dataTransfer = await page.evaluateHandle(({ name, text }) => {
    const transfer = new DataTransfer()
    transfer.items.add(new File([text], name))
    return transfer
  }, file)
  const zone = await page.getByRole('group', { name: zoneName }).elementHandle()
  await zone!.dispatchEvent('dragenter', { dataTransfer })
  await zone!.dispatchEvent('drop', { dataTransfer })
}

interface ApiEventSummary {
  id: string
  error_id: string
}

async function newestEventPath(api: Api, projectId: string): Promise<string> {
  const [event] = await api.get<ApiEventSummary[]>(`/projects/${projectId}/events?per_page=1`)
  expect(event).toBeDefined()
  return `/projects/${projectId}/errors/${event!.error_id}/events/${event!.id}`
}

test('upload native symbols on the project page, then NDK and minidump crashes read as functions, files and lines', async ({ page, request }) => {
  test.setTimeout(180_000)
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { projectId, apiKey } = await createProject(api, 'Native game')

  // Before any symbols: the crash is addresses, and the event says which library's symbols are missing.
  await notify(request, apiKey, [ndkCrash()])
  await signIn(page)
  await page.goto(await newestEventPath(api, projectId))
  await expect(page.getByText(`Symbols missing for libcrash.aarch64.so (build id ${LIBCRASH_BUILD_ID})`)).toBeVisible()
  await expect(page.getByRole('list', { name: 'Stack frames of SIGSEGV' }).getByRole('listitem', { name: /crash_here at libcrash\.aarch64\.so \+ 0x1698$/ })).toBeVisible()
  await shootAll(page, 'native-ndk-event-missing')
  await page.getByRole('link', { name: 'Upload symbols on Source maps & symbols' }).click()

  // The native tab of the upload page.
  await expect(page.getByRole('heading', { name: 'Native game: source maps & symbols' })).toBeVisible()
  await expect(page.getByRole('tab', { name: 'Native symbols' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByText('No symbol files yet')).toBeVisible()

  // A file that is not a .sym is refused here, before any upload.
  const symForm = page.getByRole('form', { name: 'Upload a Breakpad symbol file' })
  await dropFile(page, /^Drop a Breakpad \.sym file/, { name: 'libcrash.sym', text: '<!doctype html><p>Not found</p>' })
  await expect(symForm.getByRole('alert')).toContainText('libcrash.sym is not a Breakpad symbol file: its first line should start with “MODULE”')
  await expect(symForm.getByRole('button', { name: 'Upload symbol file' })).toBeDisabled()
  await shootAll(page, 'native-symbols-refusal')

  // The real .sym: its MODULE line shown, then uploaded.
  await dropFile(page, /^Drop a Breakpad \.sym file/, { name: 'libcrash.aarch64.sym', text: SYM.toString('utf8') })
  const module = symForm.getByLabel('What libcrash.aarch64.sym says')
  await expect(module).toContainText('libcrash.aarch64.so')
  await expect(module).toContainText(LIBCRASH_DEBUG_ID)
  await expect(module).toContainText(LIBCRASH_BUILD_ID)
  await symForm.getByRole('button', { name: 'Upload symbol file' }).click()
  await expect(symForm.getByRole('status')).toContainText('libcrash.aarch64.sym uploaded: symbols for libcrash.aarch64.so (arm64)')

  // A stripped build of the same library, picked with the button: its build id read in the browser.
  const soForm = page.getByRole('form', { name: 'Upload a shared library' })
  await soForm.locator('input[type="file"]').setInputFiles({ name: 'libcrash.so', mimeType: 'application/octet-stream', buffer: STRIPPED_SO })
  await expect(soForm.getByLabel('What libcrash.so says')).toContainText(LIBCRASH_BUILD_ID)
  await expect(soForm.getByLabel('What libcrash.so says')).toContainText('arm64, 64-bit')
  await shootAll(page, 'native-symbols-forms')
  await soForm.getByRole('button', { name: 'Upload library' }).click()
  await expect(soForm.getByRole('status')).toContainText('It has no line information')

  // A gzipped debug extract: the browser unpacks its start to read the build id (not uploaded here).
  const gzipped = gzipSync(fixture('libfixture.so.debug'))
  await soForm.locator('input[type="file"]').setInputFiles({ name: 'libfixture.so.gz', mimeType: 'application/gzip', buffer: gzipped })
  const gzFacts = soForm.getByLabel('What libfixture.so.gz says')
  await expect(gzFacts).toContainText('Shared library, gzipped')
  await expect(gzFacts).toContainText('5cd086499a99ccfa2839651e46ba5aeff5f4722c')
  await expect(gzFacts).toContainText('x86_64, 64-bit')
  await soForm.getByRole('button', { name: 'Remove libfixture.so.gz' }).click()

  const list = page.getByRole('table', { name: 'Uploaded symbol files, newest first' })
  const symRow = list.getByRole('row').filter({ hasText: '.sym' })
  await expect(symRow).toContainText('libcrash.aarch64.so')
  await expect(symRow).toContainText(LIBCRASH_DEBUG_ID)
  // This .sym has no STACK CFI records: no unwind info is claimed for it.
  await expect(symRow).not.toContainText('unwind info')
  const me = await api.get<{ name: string | null; email: string }>('/user')
  await expect(symRow).toContainText(me.name ?? me.email)
  await expect(list.getByRole('row').filter({ hasText: 'ELF' })).toContainText('no line information: upload the unstripped library')
  await shootAll(page, 'native-symbols-list')

  // The same crash now reads as functions, files and lines.
  await notify(request, apiKey, [ndkCrash()])
  await page.goto(await newestEventPath(api, projectId))
  const trace = page.getByRole('list', { name: 'Stack frames of SIGSEGV' })
  const crash = trace.getByRole('listitem', { name: /frame 1: crash_here at crashlib\.c:20$/ })
  await expect(crash).toBeVisible()
  await expect(crash).toContainText('libcrash.aarch64.so + 0x1698')
  await expect(trace.getByRole('listitem', { name: /frame 2: level_two at crashlib\.c:24$/ })).toBeVisible()
  await expect(page.getByText(/Symbols missing/)).toHaveCount(0)
  await shootAll(page, 'native-ndk-event')

  // The raw frames, as the notifier sent them; the choice is in the URL.
  await page.getByRole('button', { name: 'Show raw frames' }).click()
  const raw = page.getByRole('list', { name: 'Raw stack frames of SIGSEGV' })
  await expect(raw.getByRole('listitem', { name: /frame 1: crash_here at libcrash\.aarch64\.so \+ 0x1698$/ })).toBeVisible()
  await expect(raw).toContainText('frame 0x784396f698 · loaded at 0x784396e000')
  await expect(page).toHaveURL(/[?&]frames=raw/)
  await shootAll(page, 'native-ndk-event-raw')
  await page.getByRole('button', { name: 'Show raw frames' }).click()
  await expect(trace).toBeVisible()

  // A minidump of the same library: walked, symbolicated, its threads shown and its dump downloadable by the admin.
  const dump = minidump()
  await sendMinidump(request, apiKey, dump)
  await page.goto(await newestEventPath(api, projectId))
  const dumpTrace = page.getByRole('list', { name: 'Stack frames of SIGSEGV' })
  await expect(dumpTrace.getByRole('listitem', { name: /frame 1: crash_here at crashlib\.c:20$/ })).toBeVisible()
  await expect(dumpTrace.getByRole('listitem', { name: /frame 2: level_two at crashlib\.c:24$/ })).toBeVisible()
  const crashed = page.getByRole('listitem', { name: 'Crashed thread' })
  await expect(crashed).toContainText('Crashed')
  await expect(crashed.getByRole('list', { name: 'Stack frames of crashed thread' })).toContainText('crash_here')
  await page.getByRole('button', { name: 'Other threads (1)' }).click()
  await page.getByRole('button', { name: 'Stack trace of thread 8' }).click()
  await expect(page.getByRole('list', { name: 'Stack frames of thread 8' })).toContainText('libcrash.so')
  const downloadButton = page.getByRole('button', { name: /^Download minidump \(\d+(\.\d)? KB\)$/ })
  await expect(downloadButton).toBeVisible()
  await shootAll(page, 'native-minidump-event')
  const [download] = await Promise.all([page.waitForEvent('download'), downloadButton.click()])
  expect(download.suggestedFilename()).toMatch(/\.dmp$/)
  expect(readFileSync((await download.path())!).equals(dump)).toBe(true)

  expect(watched.pageErrors).toEqual([])
})
