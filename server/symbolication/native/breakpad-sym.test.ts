import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BreakpadSymError, MAX_SYM_LINE_LENGTH, parseBreakpadSym, readModuleLine, symCacheFromBreakpad } from './breakpad-sym.ts'
import type { SymbolSink } from './native-symbols.ts'
import { SymCache } from './symcache.ts'

const NATIVE = join(import.meta.dirname, '../../../test/fixtures/native')
const libfixture = readFileSync(join(NATIVE, 'libfixture.so.sym'))
const MODULE = 'MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libtest.so'

/** A sink that writes down every record it is fed. */
function recordingSink(): SymbolSink & { records: unknown[][] } {
  const records: unknown[][] = []
  return {
    records,
    file: (...args) => records.push(['file', ...args]),
    inlineOrigin: (...args) => records.push(['inlineOrigin', ...args]),
    func: (...args) => records.push(['func', ...args]),
    line: (...args) => records.push(['line', ...args]),
    inline: (...args) => records.push(['inline', ...args]),
    publicSymbol: (...args) => records.push(['publicSymbol', ...args]),
    cfi: (...args) => records.push(['cfi', ...args]),
  }
}

async function* chunks(bytes: Buffer, size: number): AsyncIterable<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
}

async function parseError(text: string): Promise<BreakpadSymError> {
  const error = await parseBreakpadSym(Buffer.from(text), recordingSink()).catch((err: unknown) => err)
  expect(error).toBeInstanceOf(BreakpadSymError)
  return error as BreakpadSymError
}

describe('parseBreakpadSym', () => {
  it('feeds every record to the sink, numbers read as the format says (hex addresses, decimal lines and ids)', async () => {
    const sink = recordingSink()
    const text = [
      MODULE,
      'INFO CODE_ID 67452301AB89EFCD0123456789ABCDEF libtest.so',
      'INFO GENERATOR mozilla/dump_syms 2.3.4',
      'FILE 10 /src/a file with spaces.c',
      'INLINE_ORIGIN 3 std::vector<int>::push_back(int const&)',
      'FUNC m 1a0 2f 8 operator new(unsigned long)',
      '1a0 10 42 10',
      'INLINE 1 100 10 3 1a4 4 1b0 2',
      'PUBLIC m ff0 0 _start',
      'PUBLIC 1000 4 plain public',
      'STACK WIN 4 2170 14 1 0 0 0 0 0 1 $eip 4 + ^ =',
      'STACK CFI INIT 1a0 2f .cfa: $rsp 8 + .ra: .cfa -8 + ^',
      'STACK CFI 1a4 .cfa: $rsp 16 +',
      '',
    ].join('\n')
    const identity = await parseBreakpadSym(Buffer.from(text), sink)
    expect(identity).toEqual({ debugId: '0123456789ABCDEF0123456789ABCDEF0', codeId: '67452301ab89efcd0123456789abcdef', os: 'linux', arch: 'x86_64', cpu: 'x86_64', moduleName: 'libtest.so' })
    expect(sink.records).toEqual([
      ['file', 10, '/src/a file with spaces.c'],
      ['inlineOrigin', 3, 'std::vector<int>::push_back(int const&)'],
      ['func', 0x1a0, 0x2f, 'operator new(unsigned long)', true],
      ['line', 0x1a0, 0x10, 42, 10],
      ['inline', 1, 100, 10, 3, [[0x1a4, 4], [0x1b0, 2]]],
      ['publicSymbol', 0xff0, '_start', true],
      ['publicSymbol', 0x1000, 'plain public', false],
      ['cfi', 'INIT 1a0 2f .cfa: $rsp 8 + .ra: .cfa -8 + ^'],
      ['cfi', '1a4 .cfa: $rsp 16 +'],
    ])
  })

  it('reads CRLF files as LF files', async () => {
    const lf = await symCacheFromBreakpad(libfixture)
    const crlf = await symCacheFromBreakpad(Buffer.from(libfixture.toString('utf8').replaceAll('\n', '\r\n')))
    expect(crlf.symCache.equals(lf.symCache)).toBe(true)
    expect(crlf.identity).toEqual(lf.identity)
    expect(SymCache.fromBuffer(crlf.symCache).lookup(0x1184)[0]?.function).toBe('fixture_crash')
  })

  it('reads a stream cut anywhere, multi-byte characters included, as it reads the whole Buffer', async () => {
    const text = Buffer.from(`\ufeff${MODULE}\nFILE 0 src/ünïcödé/∂.c\nFUNC 10 10 0 naïve_ü∂_函数\n10 10 7 0\n`)
    const whole = await symCacheFromBreakpad(text)
    for (const size of [1, 2, 3, 7, 64]) {
      const streamed = await symCacheFromBreakpad(chunks(text, size))
      expect(streamed.symCache.equals(whole.symCache), `chunks of ${size}`).toBe(true)
    }
    expect(SymCache.fromBuffer(whole.symCache).lookup(0x12)).toEqual([{ function: 'naïve_ü∂_函数', file: 'src/ünïcödé/∂.c', line: 7, inlined: false }])
    const fixtureStreamed = await symCacheFromBreakpad(chunks(libfixture, 5))
    expect(fixtureStreamed.symCache.equals((await symCacheFromBreakpad(libfixture)).symCache)).toBe(true)
  })

  it('takes a very long name, and refuses a line past the cap naming its number', async () => {
    const name = `${'std::map<int, '.repeat(5000)}int${'>'.repeat(5000)}::find()`
    expect(name.length).toBeGreaterThan(70_000)
    const { symCache } = await symCacheFromBreakpad(Buffer.from(`${MODULE}\nFUNC 10 10 0 ${name}\n`))
    expect(SymCache.fromBuffer(symCache).lookup(0x10)[0]?.function).toBe(name)

    const tooLong = `${MODULE}\nFILE 0 a.c\nFUNC 10 10 0 ${'x'.repeat(MAX_SYM_LINE_LENGTH)}\n10 10 1 0\n`
    for (const input of [Buffer.from(tooLong), chunks(Buffer.from(tooLong), 1000)]) {
      const error = await parseBreakpadSym(input, recordingSink()).catch((err: unknown) => err)
      expect(error).toBeInstanceOf(BreakpadSymError)
      expect((error as BreakpadSymError).line).toBe(3)
      expect((error as BreakpadSymError).message).toMatch(/^line 3: longer than 262144 characters/)
    }
    // the last line, without a newline after it
    expect((await parseError(`${MODULE}\n${'1'.repeat(MAX_SYM_LINE_LENGTH + 1)}`)).line).toBe(2)
  })

  it('skips empty lines and records of kinds it does not know', async () => {
    const sink = recordingSink()
    await parseBreakpadSym(Buffer.from(`${MODULE}\n\n\r\nFUTURE_RECORD 1 2 3\nFUNC 10 10 0 f\n`), sink)
    expect(sink.records).toEqual([['func', 0x10, 0x10, 'f', false]])
  })

  it.each([
    ['', null, /empty/],
    ['FILE 0 a.c', 1, /starts with a MODULE record/],
    [`${MODULE}\n${MODULE}`, 2, /second MODULE/],
    ['MODULE Linux x86', 1, /debug id is missing/],
    ['MODULE Linux x86 XYZ libx.so', 1, /debug id "XYZ" is not 32 to 40 hex digits/],
    ['MODULE Linux x86 0123456789ABCDEF0123456789ABCDEF0', 1, /module name is missing/],
    [`${MODULE}\nINFO CODE_ID nothex`, 2, /code id "nothex" is not hex/],
    [`${MODULE}\n10 4 1 0`, 2, /line record before any FUNC/],
    [`${MODULE}\nFUNC 10 10 0 f\n10 4 x 0`, 3, /line number is not a decimal number/],
    [`${MODULE}\nFUNC 10 10 0 f\n10 4 -1 0`, 3, /line number is not a decimal number/],
    [`${MODULE}\nFUNC 10 10 0 f\n10 4 1`, 3, /file number is missing/],
    [`${MODULE}\nFUNC 10 10 0 f\n10 4 1 0 extra`, 3, /unexpected text after the line record/],
    [`${MODULE}\nFUNC 10 10 0 f\n10 4 99999999999 0`, 3, /line number is too large/],
    [`${MODULE}\nFUNC zz 10 0 f`, 2, /address is not a hex number/],
    [`${MODULE}\nFUNC 10g 10 0 f`, 2, /address is not a hex number/],
    [`${MODULE}\nFUNC 10 10 0`, 2, /name is missing/],
    [`${MODULE}\nFUNC 10 10 0 `, 2, /name is missing/],
    [`${MODULE}\nFUNC 20000000000000 10 0 f`, 2, /address is too large/],
    [`${MODULE}\nPUBLIC 10`, 2, /parameter size is missing/],
    [`${MODULE}\nFILE x a.c`, 2, /file number is not a decimal number/],
    [`${MODULE}\nINLINE_ORIGIN 1`, 2, /name is missing/],
    [`${MODULE}\nINLINE 0 1 2 3 10 4`, 2, /INLINE record before any FUNC/],
    [`${MODULE}\nFUNC 10 10 0 f\nINLINE 0 1 2`, 3, /needs a depth/],
    [`${MODULE}\nFUNC 10 10 0 f\nINLINE 0 1 2 3 zz 4`, 3, /address range is not two hex numbers/],
    [`${MODULE}\nFUNC 10 10 0 f\nINLINE x 1 2 3 10 4`, 3, /depth is not a decimal number/],
    [`${MODULE}\nSTACK CFI INIT 1000`, 2, /STACK CFI record needs/],
    [`${MODULE}\nSTACK CFI zz .cfa: $rsp 8 +`, 2, /STACK CFI record needs/],
    [`${MODULE}\n!!!`, 2, /not a Breakpad record: "!!!"/],
  ])('refuses %j at line %s (%s)', async (text, line, message) => {
    const error = await parseError(text)
    expect(error.line).toBe(line)
    expect(error.message).toMatch(message)
    if (line !== null) expect(error.message).toMatch(new RegExp(`^line ${line}: `))
  })

  it('rejects what the stream throws as it is', async () => {
    async function* failing(): AsyncIterable<Buffer> {
      yield Buffer.from(`${MODULE}\n`)
      throw new Error('connection reset')
    }
    await expect(parseBreakpadSym(failing(), recordingSink())).rejects.toThrow('connection reset')
  })
})

describe('readModuleLine', () => {
  it('reads the MODULE line, and INFO CODE_ID when it is among the bytes', () => {
    const libcrash = readFileSync(join(NATIVE, 'libcrash.aarch64.sym'))
    expect(readModuleLine(libcrash)).toEqual({ debugId: '78E6C3C4C58290AE748762B6CCAF46F60', codeId: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a', os: 'linux', arch: 'arm64', cpu: 'arm64', moduleName: 'libcrash.aarch64.so' })
    // the INFO line cut short is not read
    expect(readModuleLine(libcrash.subarray(0, 100))).toMatchObject({ debugId: '78E6C3C4C58290AE748762B6CCAF46F60', codeId: null })
    expect(readModuleLine(Buffer.from('MODULE windows x86 5A9832E5287241C1838ED98914E9B7FF1 my app.pdb\r\nFILE 0 a.c\r\n'))).toEqual({
      debugId: '5A9832E5287241C1838ED98914E9B7FF1',
      codeId: null,
      os: 'windows',
      arch: 'x86',
      cpu: 'x86',
      moduleName: 'my app.pdb',
    })
  })

  it.each([[''], ['FILE 0 a.c\n'], ['MODULE Linux x86\n'], ['\u0000\u0001binary'], ['MODULE Linux x86 nothex name\n']])('is null for %j', (text) => {
    expect(readModuleLine(Buffer.from(text))).toBeNull()
  })
})
