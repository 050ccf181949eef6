import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { bytesReader, checkSharedObject, debugIdFromBuildId, gunzipHead, libraryNameOf, readElfBuildId, readModuleLine, sniffSharedObject } from './read-native-file.ts'

const NATIVE = join(import.meta.dirname, '../../../test/fixtures/native')
const fixture = (name: string) => new Uint8Array(readFileSync(join(NATIVE, name)))
const LIBCRASH_BUILD_ID = 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a'
const LIBFIXTURE_BUILD_ID = '5cd086499a99ccfa2839651e46ba5aeff5f4722c'

/** A stream of the bytes in small chunks, as a file's stream arrives. */
const streamOf = (bytes: Uint8Array, chunk = 1000) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += chunk) controller.enqueue(bytes.slice(at, at + chunk))
      controller.close()
    },
  })

describe('readModuleLine', () => {
  it('reads the MODULE line and the INFO CODE_ID of a real .sym', () => {
    const text = readFileSync(join(NATIVE, 'libcrash.aarch64.sym'), 'utf8')
    expect(readModuleLine(text.slice(0, 4096), 'libcrash.sym')).toEqual({
      ok: true,
      module: { os: 'Linux', cpu: 'arm64', debugId: '78E6C3C4C58290AE748762B6CCAF46F60', name: 'libcrash.aarch64.so', codeId: LIBCRASH_BUILD_ID },
    })
  })

  it('takes CRLF, a byte order mark, a name with spaces and a 32-digit id (age 0 added)', () => {
    const check = readModuleLine('\ufeffMODULE windows x86 0123456789abcdef0123456789abcdef My App.pdb\r\nFILE 0 a.c\r\n', 'app.sym')
    expect(check).toEqual({ ok: true, module: { os: 'windows', cpu: 'x86', debugId: '0123456789ABCDEF0123456789ABCDEF0', name: 'My App.pdb', codeId: null } })
  })

  it('refuses what is not a symbol file, in words', () => {
    const problem = (text: string) => {
      const check = readModuleLine(text, 'libcrash.sym')
      return check.ok ? null : check.problem
    }
    expect(problem('<!doctype html><title>404</title>')).toBe(
      'libcrash.sym is not a Breakpad symbol file: its first line should start with “MODULE”, as the files dump_syms writes do. Was it saved as a web page or an error message?',
    )
    expect(problem('')).toBe('libcrash.sym is not a Breakpad symbol file: it is empty.')
    expect(problem('\x7fELF\x02\x01')).toMatch(/it is a shared library \(ELF\); drop it on the shared library form instead/)
    expect(problem('MODULE Linux arm64 nothex libcrash.so\n')).toBe('libcrash.sym is not a Breakpad symbol file: its debug id “nothex” should be 33 hexadecimal digits.')
    expect(problem('MODULE Linux arm64\n')).toMatch(/should name the system, the CPU, the debug id and the module/)
  })
})

describe('readElfBuildId', () => {
  it('finds the build id of an arm64 shared object in its program headers', async () => {
    expect(await readElfBuildId(bytesReader(fixture('libcrash.aarch64.so')))).toEqual({ buildId: LIBCRASH_BUILD_ID, arch: 'arm64', bits: 64 })
  })

  it('finds it in a debug-only extract with compressed sections (x86_64)', async () => {
    expect(await readElfBuildId(bytesReader(fixture('libfixture.so.debug')))).toEqual({ buildId: LIBFIXTURE_BUILD_ID, arch: 'x86_64', bits: 64 })
  })

  it('reads 32-bit ARM objects', async () => {
    expect(await readElfBuildId(bytesReader(fixture('libcrash.armv7.so')))).toMatchObject({ buildId: 'e89fc7306452887b52d28be3398fbaa646802a48', arch: 'arm', bits: 32 })
  })

  it('falls back to the section headers when no program header names the notes', async () => {
    const bytes = fixture('libcrash.aarch64.so').slice()
    // No program headers (e_phnum = 0), as in a relocatable object.
    new DataView(bytes.buffer).setUint16(56, 0, true)
    expect((await readElfBuildId(bytesReader(bytes)))?.buildId).toBe(LIBCRASH_BUILD_ID)
  })

  it('stays within the bytes it has: a truncated object has no build id rather than a wrong one', async () => {
    const whole = fixture('libcrash.aarch64.so')
    for (const length of [0, 10, 63, 64, 200, 0x270, 0x280, 0x290]) {
      const facts = await readElfBuildId(bytesReader(whole.subarray(0, length)))
      expect(facts === null || facts.buildId === null, `${length} bytes`).toBe(true)
    }
    // Notes whose sizes run past their segment.
    const bad = whole.slice()
    new DataView(bad.buffer).setUint32(0x270 + 4, 0xffffffff, true)
    expect((await readElfBuildId(bytesReader(bad)))?.buildId).toBeNull()
  })

  it('converts a build id to the debug id a .sym of the same library names', () => {
    expect(debugIdFromBuildId(LIBCRASH_BUILD_ID)).toBe('78E6C3C4C58290AE748762B6CCAF46F60')
    expect(debugIdFromBuildId('b060ad20c6b47781552708aa192e7739fac7c84a')).toBe('20AD60B0B4C68177552708AA192E77390')
  })
})

describe('shared objects as dropped', () => {
  it('tells ELF and gzip from other files by their first bytes', () => {
    expect(sniffSharedObject(fixture('libcrash.aarch64.so').subarray(0, 8), 'a.so')).toEqual({ kind: 'elf' })
    expect(sniffSharedObject(new Uint8Array([0x1f, 0x8b, 8, 0]), 'a.so.gz')).toEqual({ kind: 'gzip' })
    expect(sniffSharedObject(new TextEncoder().encode('PK\x03\x04rest'), 'app.apk')).toEqual({
      kind: 'other',
      problem: 'app.apk is not a shared library (.so): it is a zip archive (an .apk or .aar?); upload the .so inside it, from lib/<abi>/.',
    })
    expect(sniffSharedObject(new TextEncoder().encode('hello'), 'notes.txt')).toMatchObject({
      problem: 'notes.txt is not a shared library (.so): a shared library starts with the bytes 7f 45 4c 46 (“ELF”), or 1f 8b when gzipped.',
    })
  })

  it('unpacks only the start of a gzip stream', async () => {
    const big = new Uint8Array(3_000_000).map((_, i) => i % 251)
    const head = await gunzipHead(streamOf(new Uint8Array(gzipSync(big))), 1_000_000)
    expect(head.length).toBe(1_000_000)
    expect(head.subarray(0, 1000)).toEqual(big.subarray(0, 1000))
  })

  it('reads the build id of a .so.gz from its unpacked start', async () => {
    const unpacked = await gunzipHead(streamOf(new Uint8Array(gzipSync(fixture('libcrash.aarch64.so')))), 1024 * 1024)
    expect(await readElfBuildId(bytesReader(unpacked))).toEqual({ buildId: LIBCRASH_BUILD_ID, arch: 'arm64', bits: 64 })
  })

  it('checks a dropped file: ELF, gzip of ELF, gzip of something else', async () => {
    const blob = (bytes: Uint8Array) => ({
      slice: (start: number, end: number) => ({ arrayBuffer: async () => bytes.slice(start, end).buffer }),
      stream: () => streamOf(bytes),
    }) as unknown as Blob
    expect(await checkSharedObject(blob(fixture('libcrash.aarch64.so')), 'libcrash.so')).toEqual({
      ok: true,
      gzipped: false,
      elf: { buildId: LIBCRASH_BUILD_ID, arch: 'arm64', bits: 64 },
    })
    expect(await checkSharedObject(blob(new Uint8Array(gzipSync(fixture('libfixture.so.debug')))), 'libfixture.so.gz')).toEqual({
      ok: true,
      gzipped: true,
      elf: { buildId: LIBFIXTURE_BUILD_ID, arch: 'x86_64', bits: 64 },
    })
    expect(await checkSharedObject(blob(new Uint8Array(gzipSync(Buffer.from('MODULE Linux arm64 …')))), 'oops.so.gz')).toEqual({
      ok: false,
      problem: 'oops.so.gz is gzipped, but what it holds is not a shared library (.so): it should start with 7f 45 4c 46 (“ELF”).',
    })
    // A damaged gzip is left to the server, which names what is wrong.
    expect(await checkSharedObject(blob(new Uint8Array([0x1f, 0x8b, 1, 2, 3])), 'bad.so.gz')).toEqual({ ok: true, gzipped: true, elf: null })
  })
})

describe('libraryNameOf', () => {
  it('names the library a dropped file is', () => {
    expect(libraryNameOf('libgame.so')).toBe('libgame.so')
    expect(libraryNameOf('libgame.so.gz')).toBe('libgame.so')
    expect(libraryNameOf('libgame.so.debug')).toBe('libgame.so')
    expect(libraryNameOf('libssl.so.3')).toBe('libssl.so.3')
    expect(libraryNameOf('symbols.zip')).toBeNull()
  })
})
