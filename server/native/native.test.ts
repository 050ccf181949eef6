// Native crashes end to end through the app: symbol files uploaded as the real uploaders send
// them (requests captured from Breakpad's sym_upload, the Bugsnag CLI and the Android Gradle
// plugin, test/fixtures/wire), then an NDK event and a minidump whose frames are read back through
// the API as function, file and line.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent } from '../../contract/events.ts'
import type { NativeSymbolFile } from '../../contract/native.ts'
import { writeMinidump, framePointerStack } from '../test-support/minidump-writer.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

const NATIVE = join(import.meta.dirname, '../../test/fixtures/native')
const WIRE = join(import.meta.dirname, '../../test/fixtures/wire')
const native = (name: string) => readFileSync(join(NATIVE, name))
const LIBFIXTURE_DEBUG_ID = '4986D05C999AFACC2839651E46BA5AEF0'
const LIBCRASH_BUILD_ID = 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a'

interface Capture {
  url: string
  headers: Record<string, string>
  multipart: Array<{ name: string; filename: string | null; value?: string }>
}
const capture = (name: string) => JSON.parse(readFileSync(join(WIRE, `${name}.request.json`), 'utf8')) as Capture

/** A captured request's form, with our key, and `files` as the content of its file parts. */
function formOf(request: Capture, apiKey: string, files: Record<string, Buffer>): FormData {
  const form = new FormData()
  for (const part of request.multipart) {
    if (part.filename !== null) form.append(part.name, new Blob([new Uint8Array(files[part.name]!)]), part.filename)
    else form.append(part.name, part.name === 'apiKey' ? apiKey : part.value!)
  }
  return form
}

const errorsOf = async (res: Response) => ((await res.json()) as { errors: string[] }).errors

let ctx: TestContext
let seeded: SeededProject
let member: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Native Admin', project: 'Game', type: 'android' })
  member = await seedMember(ctx, seeded.organization.id, 'Native Member')
})
afterAll(async () => {
  await ctx?.close()
})

const listSymbols = async () =>
  (await (await ctx.request(`/api/projects/${seeded.project.id}/native_symbols`, { token: seeded.user.token })).json()) as NativeSymbolFile[]

describe('Breakpad symbol uploads', () => {
  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) => ctx.request(path, { method: 'POST', body, headers })

  it("takes Breakpad's sym_upload request as it sends it, and refuses it again without overwrite", async () => {
    const real = capture('breakpad-real-sym_upload')
    const url = real.url.replace(/api_key=[0-9a-f]+/, `api_key=${seeded.project.api_key}`)
    const body = readFileSync(join(WIRE, 'breakpad-real-sym_upload.body.raw'))
    const send = (target: string) => post(target, new Uint8Array(body), { 'Content-Type': real.headers['content-type']! })
    const res = await send(url)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('OK')
    const [file] = await listSymbols()
    expect(file).toMatchObject({
      kind: 'breakpad',
      debug_id: LIBFIXTURE_DEBUG_ID,
      code_id: '5cd086499a99ccfa2839651e46ba5aeff5f4722c',
      os: 'linux',
      arch: 'x86_64',
      module_name: 'libfixture.so',
      version: '1.2.3',
      has_line_info: true,
      uploaded_by: null,
    })
    // The capture said overwrite=true: again is fine; without it, a duplicate.
    expect((await send(url)).status).toBe(200)
    const refused = await send(url.replace('overwrite=true', 'overwrite=false'))
    expect(refused.status).toBe(409)
    expect(await errorsOf(refused)).toEqual(['duplicate symbols file'])
    expect(await listSymbols()).toHaveLength(1)
  })

  it('takes the Bugsnag CLI forms, the minimal one reading everything from the MODULE line', async () => {
    const sym = native('libfixture.so.sym')
    for (const name of ['breakpad-bugsnag-cli-style', 'breakpad-bugsnag-cli-minimal']) {
      const request = capture(name)
      const url = request.url.replace(/api_key=[0-9a-f]+/, `api_key=${seeded.project.api_key}`).replace('overwrite=false', 'overwrite=true')
      const res = await post(url, formOf(request, seeded.project.api_key, { symbol_file: sym }))
      expect(res.status, name).toBe(200)
    }
    expect((await listSymbols()).filter((f) => f.debug_id === LIBFIXTURE_DEBUG_ID)).toHaveLength(1)
  })

  it('refuses as the contract words it', async () => {
    const sym = native('libfixture.so.sym')
    const form = (fields: Record<string, string>, file = true) => {
      const f = new FormData()
      for (const [k, v] of Object.entries(fields)) f.append(k, v)
      if (file) f.append('symbol_file', new Blob([new Uint8Array(sym)]), 'libfixture.so.sym')
      return f
    }
    const cases: Array<[string, FormData, number, string]> = [
      ['/minidump-symbol', form({}), 401, 'missing api_key'],
      [`/minidump-symbol?api_key=${'0'.repeat(32)}`, form({}), 401, 'invalid api_key'],
      ['/breakpad-symbol?api_key=not-a-key', form({}), 401, 'invalid api_key'],
      [`/breakpad-symbol?api_key=${seeded.project.api_key}`, form({ os: 'Linux' }, false), 400, 'missing symbol_file'],
      [`/breakpad-symbol?api_key=${seeded.project.api_key}`, form({}), 409, 'duplicate symbols file'],
    ]
    for (const [path, body, status, message] of cases) {
      const res = await post(path, body)
      expect(res.status, path).toBe(status)
      expect(await errorsOf(res), path).toEqual([message])
    }
    const bad = new FormData()
    bad.append('symbol_file', new Blob(['MODULE Linux x86_64 0123 lib.so\nFUNC zz 10 0 broken\n']), 'bad.sym')
    const malformed = await post(`/breakpad-symbol?api_key=${seeded.project.api_key}`, bad)
    expect(malformed.status).toBe(400)
    expect((await errorsOf(malformed))[0]).toMatch(/^symbol_file: line \d+: /)
  })
})

describe('upload limits', () => {
  it('refuses a symbol file or a dump past its limit with 413 while it streams', async () => {
    const small = await createTestContext({ native: { maxSymbolFileBytes: 1024, maxMinidumpBytes: 1024, cacheBytes: 1 << 20 } })
    try {
      const { project } = await seedProject(small, { user: 'Limits', project: 'Small' })
      const sym = new FormData()
      sym.append('symbol_file', new Blob([new Uint8Array(native('libfixture.so.sym'))]), 'libfixture.so.sym')
      const res = await small.request(`/breakpad-symbol?api_key=${project.api_key}`, { method: 'POST', body: sym })
      expect(res.status).toBe(413)
      expect((await errorsOf(res))[0]).toMatch(/ERRATA_MAX_SYMBOL_FILE_BYTES/)
      const dump = new FormData()
      dump.append('upload_file_minidump', new Blob([new Uint8Array(2048)]), 'big.dmp')
      const tooBig = await small.request(`/minidump?api_key=${project.api_key}`, { method: 'POST', body: dump })
      expect(tooBig.status).toBe(413)
      expect((await errorsOf(tooBig))[0]).toMatch(/ERRATA_MAX_MINIDUMP_BYTES/)
    } finally {
      await small.close()
    }
  })
})

describe('NDK symbol uploads', () => {
  it('takes the Gradle plugin upload (a gzip of a debug-only extract with zlib-compressed sections) and the CLI one', async () => {
    const gradle = capture('ndk-symbol-gradle-style')
    const res = await ctx.request('/ndk-symbol', { method: 'POST', body: formOf(gradle, seeded.project.api_key, { soFile: gzipSync(native('libfixture.so.debug')) }) })
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('Accepted')
    const elf = (await listSymbols()).find((f) => f.kind === 'elf')
    expect(elf).toMatchObject({ debug_id: LIBFIXTURE_DEBUG_ID, code_id: '5cd086499a99ccfa2839651e46ba5aeff5f4722c', arch: 'x86_64', has_line_info: true, version: '1.2.3' })

    const again = await ctx.request('/ndk-symbol', { method: 'POST', body: formOf(gradle, seeded.project.api_key, { soFile: gzipSync(native('libfixture.so.debug')) }) })
    expect(again.status).toBe(409)
    expect(await errorsOf(again)).toEqual(['duplicate symbols file'])
    const cli = capture('ndk-symbol-bugsnag-cli-style')
    expect((await ctx.request('/ndk-symbol', { method: 'POST', body: formOf(cli, seeded.project.api_key, { soFile: native('libfixture.so') }) })).status).toBe(202)
  })

  it('refuses what is not a usable shared object, naming soFile', async () => {
    const upload = (file: Buffer | null, key: string | null = seeded.project.api_key) => {
      const form = new FormData()
      if (key !== null) form.append('apiKey', key)
      if (file) form.append('soFile', new Blob([new Uint8Array(file)]), 'lib.so')
      return ctx.request('/ndk-symbol', { method: 'POST', body: form })
    }
    const noBuildId = Buffer.from(native('libcrash.aarch64.so'))
    // The build id note's type (NT_GNU_BUILD_ID, 3) zeroed: the object has no build id.
    const note = noBuildId.indexOf(Buffer.from('GNU\0', 'latin1')) - 4
    noBuildId.writeUInt32LE(0, note)
    const cases: Array<[Buffer | null, string | null, number, RegExp]> = [
      [native('libcrash.aarch64.so'), null, 401, /^missing apiKey$/],
      [native('libcrash.aarch64.so'), 'f'.repeat(32), 401, /^invalid apiKey$/],
      [null, seeded.project.api_key, 400, /^missing soFile$/],
      [Buffer.from('hello, this is text'), seeded.project.api_key, 400, /^soFile: not an ELF shared object/],
      [native('libcrash.aarch64.so').subarray(0, 200), seeded.project.api_key, 400, /^soFile: .*truncated/i],
      [noBuildId, seeded.project.api_key, 400, /^soFile: .*build id/i],
    ]
    for (const [file, key, status, message] of cases) {
      const res = await upload(file, key)
      expect(res.status, String(message)).toBe(status)
      expect((await errorsOf(res))[0]).toMatch(message)
    }
  })
})

/** The event the latest one of `errorClass` became, through the API. */
async function latestEvent(errorClass: string): Promise<ErrorEvent> {
  const errors = (await (await ctx.request(`/api/projects/${seeded.project.id}/errors?sort=last_seen`, { token: seeded.user.token })).json()) as Array<{ id: string; error_class: string }>
  const error = errors.find((e) => e.error_class === errorClass)!
  return (await (await ctx.request(`/api/projects/${seeded.project.id}/errors/${error.id}/latest_event`, { token: seeded.user.token })).json()) as ErrorEvent
}

describe('NDK events', () => {
  const ndkEvent = () => {
    const fixture = JSON.parse(native('android-ndk-event.json').toString('utf8')) as { exceptions: unknown[] }
    return { payloadVersion: '4', events: [{ exceptions: fixture.exceptions, app: { version: '1.0', releaseStage: 'production' } }] }
  }
  const notify = (body: unknown) =>
    ctx.request('/notify', { method: 'POST', headers: { 'Bugsnag-Api-Key': seeded.project.api_key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })

  it('names the missing symbol file, then resolves the frames once the library is uploaded', async () => {
    expect((await notify(ndkEvent())).status).toBe(200)
    const before = await latestEvent('SIGSEGV')
    expect(before.native_symbolication).toEqual({
      status: 'missing',
      symbolicated_frames: 0,
      missing: [{ module: '/data/app/com.example/lib/arm64/libcrash.aarch64.so', debug_id: '78E6C3C4C58290AE748762B6CCAF46F60', code_id: LIBCRASH_BUILD_ID }],
    })

    const form = new FormData()
    form.append('apiKey', seeded.project.api_key)
    form.append('projectRoot', '/build')
    form.append('soFile', new Blob([new Uint8Array(native('libcrash.aarch64.so'))]), 'libcrash.aarch64.so')
    expect((await ctx.request('/ndk-symbol', { method: 'POST', body: form })).status).toBe(202)

    expect((await notify(ndkEvent())).status).toBe(200)
    const event = await latestEvent('SIGSEGV')
    expect(event.native_symbolication).toMatchObject({ status: 'symbolicated', symbolicated_frames: 2, missing: [] })
    const [first, second] = event.exceptions[0]!.stacktrace
    expect(first).toMatchObject({ method: 'crash_here', line: 20 })
    expect(first!.file).toMatch(/crashlib\.c$/)
    expect(second).toMatchObject({ method: 'level_two', line: 24 })
    // The frame as it came, and its addresses, stay beside the symbolicated one.
    expect(first!.native).toMatchObject({ relative_address: '0x1698', symbolicated_from: { method: 'crash_here', line: 5784 } })
  })
})

describe('minidumps', () => {
  const BASE = 0x7000000000n
  const dumpOf = () => {
    const stack = framePointerStack('arm64', { base: 0x7ff0000000n, returnAddresses: [BASE + 0x16bcn, BASE + 0x16e0n] })
    return writeMinidump({
      arch: 'arm64',
      os: 'android',
      modules: [{ name: '/data/app/lib/arm64/libcrash.so', base: BASE, size: 0x10000, buildId: LIBCRASH_BUILD_ID }],
      crashingThread: { id: 7, pc: BASE + 0x1698n, sp: stack.sp, fp: stack.fp, lr: BASE + 0x16bcn, stack: stack.stack },
      exception: { code: 11, address: 0x10n },
    })
  }
  const upload = (dump: Buffer, fields: Record<string, string> = {}, init: { key?: string; gzip?: boolean } = {}) => {
    const form = new FormData()
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    form.append('upload_file_minidump', new Blob([new Uint8Array(dump)]), 'crash.dmp')
    const request = new Request('http://errata.test/x', { method: 'POST', body: form })
    return (async () => {
      const body = Buffer.from(await request.arrayBuffer())
      return ctx.request(`/minidump?api_key=${init.key ?? seeded.project.api_key}`, {
        method: 'POST',
        headers: { 'Content-Type': request.headers.get('Content-Type')!, ...(init.gzip && { 'Content-Encoding': 'gzip' }) },
        body: new Uint8Array(init.gzip ? gzipSync(body) : body),
      })
    })()
  }

  it('walks the crashing thread and symbolicates it with the uploaded .sym; admins download the dump', async () => {
    const sym = new FormData()
    sym.append('symbol_file', new Blob([new Uint8Array(native('libcrash.aarch64.sym'))]), 'libcrash.sym')
    expect((await ctx.request(`/breakpad-symbol?api_key=${seeded.project.api_key}&overwrite=true`, { method: 'POST', body: sym })).status).toBe(200)

    const dump = dumpOf()
    const res = await upload(dump, { event: JSON.stringify({ app: { version: '3.1.0', releaseStage: 'beta' }, user: { id: 'u1' } }), prod: 'Game', _version: '9.9' }, { gzip: true })
    expect(res.status).toBe(202)
    const eventId = await res.text()
    const event = (await (await ctx.request(`/api/projects/${seeded.project.id}/events/${eventId}`, { token: seeded.user.token })).json()) as ErrorEvent
    expect(event.exceptions[0]).toMatchObject({ class: 'SIGSEGV', message: 'SIGSEGV at 0x10' })
    expect(event.app_version).toBe('3.1.0')
    expect(event.release_stage).toBe('beta')
    expect(event.minidump).toEqual({ size: dump.length })
    const frames = event.exceptions[0]!.stacktrace
    expect(frames.slice(0, 2)).toMatchObject([
      { method: 'crash_here', file: 'crashlib.c', line: 20, native: { frame_address: `0x${(BASE + 0x1698n).toString(16)}`, relative_address: '0x1698', trust: 'context' } },
      { method: 'level_two', file: 'crashlib.c', line: 24, native: { relative_address: '0x16bc', lookup_address: '0x16b8', trust: 'frame_pointer' } },
    ])
    expect(event.threads[0]).toMatchObject({ id: '7', error_reporting_thread: true })
    expect(event.meta_data['Crash reporter']).toEqual({ prod: 'Game', _version: '9.9' })

    const download = await ctx.request(`/api/projects/${seeded.project.id}/events/${eventId}/minidump`, { token: seeded.user.token })
    expect(download.status).toBe(200)
    expect(Buffer.from(await download.arrayBuffer()).equals(dump)).toBe(true)
    expect((await ctx.request(`/api/projects/${seeded.project.id}/events/${eventId}/minidump`, { token: member.token })).status).toBe(403)

    // Deleting the event deletes its dump.
    expect((await ctx.request(`/api/projects/${seeded.project.id}/events/${eventId}`, { method: 'DELETE', token: seeded.user.token })).status).toBe(204)
    expect((await ctx.request(`/api/projects/${seeded.project.id}/events/${eventId}/minidump`, { token: seeded.user.token })).status).toBe(404)
  })

  it('answers a malformed or truncated dump with a 400 naming what is wrong, and stores nothing', async () => {
    const dump = dumpOf()
    for (const bad of [Buffer.from('not a dump at all'), dump.subarray(0, 40), dump.subarray(0, dump.length - 100)]) {
      const res = await upload(bad)
      expect(res.status).toBe(400)
      expect((await errorsOf(res))[0]).toMatch(/^upload_file_minidump: minidump: /)
    }
    const missing = new FormData()
    missing.append('other', 'x')
    const res = await ctx.request(`/minidump?api_key=${seeded.project.api_key}`, { method: 'POST', body: missing })
    expect(res.status).toBe(400)
    expect(await errorsOf(res)).toEqual(['missing upload_file_minidump'])
    expect((await upload(dump, {}, { key: 'f'.repeat(32) })).status).toBe(401)
    // A body that says gzip and is not.
    const notGzip = await ctx.request(`/minidump?api_key=${seeded.project.api_key}`, {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Encoding': 'gzip' },
      body: 'this is not gzip',
    })
    expect(notGzip.status).toBe(400)
    expect((await errorsOf(notGzip))[0]).toMatch(/^body: says Content-Encoding: gzip but is not gzip/)
    const badEvent = await upload(dump, { event: '{nope' })
    expect(badEvent.status).toBe(400)
    expect((await errorsOf(badEvent))[0]).toMatch(/^event: /)
  })
})
