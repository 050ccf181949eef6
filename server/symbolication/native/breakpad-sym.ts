// A streaming parser of Breakpad text symbol files (google/breakpad docs/symbol_files.md). It
// reads the text once, line by line, and hands every record to a SymbolSink (the SymCache
// builder); it never holds the whole file. Real files reach gigabytes and C++/Rust names tens of
// kilobytes, so lines are capped. Symbol files are uploads, hence untrusted: whatever the input,
// parsing ends in a ModuleIdentity or a BreakpadSymError naming the line and what is wrong.
//
// Records (numbers are hex unless said decimal; names and file names run to the end of the line
// and may hold spaces):
//   MODULE <os> <cpu> <debug id> <name>          the first line
//   INFO CODE_ID <code id> [<file>]               → identity.codeId (lower-case); other INFO ignored
//   FILE <decimal id> <name>
//   INLINE_ORIGIN <decimal id> <name>             and the older INLINE_ORIGIN <id> <file id> <name>
//   FUNC [m] <address> <size> <param size> <name>
//   <address> <size> <decimal line> <decimal file id>           a line record, after a FUNC
//   INLINE <depth> <call line> <call file> <origin> (<address> <size>)+   after a FUNC; decimal but
//        the ranges; the older form has no call file (told apart by the count of fields, as
//        Breakpad's processor does)
//   PUBLIC [m] <address> <param size> <name>
//   STACK CFI INIT <address> <size> <rules> / STACK CFI <address> <rules>   → sink.cfi()
//   STACK WIN …                                   ignored (Windows x86 unwinding)
// Lines may end in CRLF; empty lines are skipped, and so are records of an unknown upper-case
// kind (a newer format's), so that files from newer dump_syms still load.
import { StringDecoder } from 'node:string_decoder'
import { normalizeArch, normalizeCodeId, normalizeDebugId } from './native-ids.ts'
import type { ModuleIdentity, SymbolSink } from './native-symbols.ts'
import { createSymCacheBuilder, parseCfiRecord } from './symcache.ts'

/** The longest line accepted, in characters. */
export const MAX_SYM_LINE_LENGTH = 256 * 1024

/** A symbol file that cannot be read: `line` is its 1-based line number (null when the file as a whole is at fault). */
export class BreakpadSymError extends Error {
  override name = 'BreakpadSymError'
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`)
  }
}

/** A MODULE line's fields, as the upload form shows them before the whole file is read. */
export interface ModuleLine extends ModuleIdentity {
  /** The MODULE line's CPU as written (arch is Errata's name for it). */
  cpu: string
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER
const MAX_U32 = 0xffffffff

/** A cursor over one line's fields. Fields are separated by spaces or tabs. */
class Fields {
  text = ''
  at = 0
  lineNumber = 0

  reset(text: string, at: number, lineNumber: number): void {
    this.text = text
    this.at = at
    this.lineNumber = lineNumber
  }

  fail(what: string): never {
    throw new BreakpadSymError(what, this.lineNumber)
  }

  /** Skips one or more separators; fails with `what` when there are none. */
  separator(what: string): void {
    const start = this.at
    while (this.at < this.text.length && isSpace(this.text.charCodeAt(this.at))) this.at++
    if (this.at === start || this.at === this.text.length) this.fail(`${what} is missing`)
  }

  hex(what: string): number {
    const { text } = this
    let value = 0
    const start = this.at
    for (; this.at < text.length; this.at++) {
      const c = text.charCodeAt(this.at)
      const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1
      if (digit < 0) break
      value = value * 16 + digit
      if (value > MAX_SAFE) this.fail(`${what} is too large (more than 2^53)`)
    }
    if (this.at === start) this.fail(`${what} is not a hex number`)
    this.endOfField(what, 'hex')
    return value
  }

  decimal(what: string): number {
    const { text } = this
    let value = 0
    const start = this.at
    for (; this.at < text.length; this.at++) {
      const c = text.charCodeAt(this.at)
      if (c < 48 || c > 57) break
      value = value * 10 + (c - 48)
      if (value > MAX_U32) this.fail(`${what} is too large`)
    }
    if (this.at === start) this.fail(`${what} is not a decimal number`)
    this.endOfField(what, 'decimal')
    return value
  }

  private endOfField(what: string, kind: string): void {
    if (this.at < this.text.length && !isSpace(this.text.charCodeAt(this.at))) this.fail(`${what} is not a ${kind} number`)
  }

  /** The next field, up to a separator. */
  word(what: string): string {
    const start = this.at
    while (this.at < this.text.length && !isSpace(this.text.charCodeAt(this.at))) this.at++
    if (this.at === start) this.fail(`${what} is missing`)
    return this.text.slice(start, this.at)
  }

  /** Everything left on the line (a name: it may hold spaces). */
  rest(what: string): string {
    if (this.at >= this.text.length) this.fail(`${what} is missing`)
    const rest = this.text.slice(this.at)
    this.at = this.text.length
    return rest
  }

  /** Fails unless only separators are left. */
  end(record: string): void {
    while (this.at < this.text.length && isSpace(this.text.charCodeAt(this.at))) this.at++
    if (this.at < this.text.length) this.fail(`unexpected text after the ${record} record's fields`)
  }

  /** Consumes an `m ` (the identical-code-folded flag) if it comes next. */
  folded(): boolean {
    const { text, at } = this
    if (text.charCodeAt(at) === 109 /* m */ && isSpace(text.charCodeAt(at + 1))) {
      this.at++
      this.separator('the address')
      return true
    }
    return false
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9
}

function isLowerHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102)
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
}

/** The record kind at the start of a line, up to its first separator. */
function recordKind(line: string): string {
  let end = 0
  while (end < line.length && !isSpace(line.charCodeAt(end))) end++
  return line.slice(0, end)
}

function parseModule(fields: Fields): ModuleLine {
  fields.separator('the operating system')
  const os = fields.word('the operating system')
  fields.separator('the CPU')
  const cpu = fields.word('the CPU')
  fields.separator('the debug id')
  const rawId = fields.word('the debug id')
  const debugId = normalizeDebugId(rawId)
  if (!debugId || rawId.includes('-')) fields.fail(`the debug id "${rawId.slice(0, 80)}" is not 32 to 40 hex digits`)
  fields.separator('the module name')
  const moduleName = fields.rest('the module name').trimEnd()
  return { debugId, codeId: null, os: os.toLowerCase(), arch: normalizeArch(cpu), cpu, moduleName }
}

/** Reads a line's record and feeds it to the sink, keeping what spans lines (the identity, whether a FUNC came). */
class SymParser {
  readonly fields = new Fields()
  identity: ModuleLine | null = null
  inFunction = false

  constructor(readonly sink: SymbolSink) {}

  line(text: string, lineNumber: number): void {
    if (text.length === 0) return
    const f = this.fields
    f.reset(text, 0, lineNumber)
    const first = text.charCodeAt(0)
    if (this.identity === null) {
      if (recordKind(text) !== 'MODULE') f.fail('a symbol file starts with a MODULE record')
      f.at = 6
      this.identity = parseModule(f)
      return
    }
    // Line records are most of a file. They start with a hex address, in lower case as dump_syms
    // writes them (record kinds are upper case); an upper-case one is told from a kind below.
    if (isLowerHexDigit(first) || (isHexDigit(first) && /^[0-9A-Fa-f]+$/.test(recordKind(text)))) {
      if (!this.inFunction) f.fail('a line record before any FUNC record')
      const address = f.hex('the address')
      f.separator('the size')
      const size = f.hex('the size')
      f.separator('the line number')
      const line = f.decimal('the line number')
      f.separator('the file number')
      const file = f.decimal('the file number')
      f.end('line')
      this.sink.line(address, size, line, file)
      return
    }
    const kind = recordKind(text)
    f.at = kind.length
    switch (kind) {
      case 'FUNC': {
        f.separator('the address')
        const folded = f.folded()
        const address = f.hex('the address')
        f.separator('the size')
        const size = f.hex('the size')
        f.separator('the parameter size')
        f.hex('the parameter size')
        f.separator('the name')
        this.sink.func(address, size, f.rest('the name'), folded)
        this.inFunction = true
        return
      }
      case 'PUBLIC': {
        f.separator('the address')
        const folded = f.folded()
        const address = f.hex('the address')
        f.separator('the parameter size')
        f.hex('the parameter size')
        f.separator('the name')
        this.sink.publicSymbol(address, f.rest('the name'), folded)
        return
      }
      case 'FILE': {
        f.separator('the file number')
        const id = f.decimal('the file number')
        f.separator('the file name')
        this.sink.file(id, f.rest('the file name'))
        return
      }
      case 'INLINE_ORIGIN': {
        f.separator('the origin number')
        const id = f.decimal('the origin number')
        f.separator('the name')
        // The older form puts a file number (or -1) before the name; Breakpad tells them apart
        // by whether the next field is a number.
        const older = /^-?\d+[ \t]+\S/.exec(text.slice(f.at))
        if (older) {
          f.word('the file number')
          f.separator('the name')
        }
        this.sink.inlineOrigin(id, f.rest('the name'))
        return
      }
      case 'INLINE':
        this.inline(text, lineNumber)
        return
      case 'STACK': {
        f.separator('the STACK record kind')
        const stackKind = f.word('the STACK record kind')
        if (stackKind !== 'CFI') return // STACK WIN and anything newer: not used
        f.separator('the CFI record')
        const record = f.rest('the CFI record').trimEnd()
        if (!parseCfiRecord(record)) f.fail('a STACK CFI record needs a hex address (INIT: an address and a size) and rules')
        this.sink.cfi?.(record)
        return
      }
      case 'INFO': {
        if (f.at >= text.length) return
        f.separator('the INFO kind')
        if (f.word('the INFO kind') !== 'CODE_ID') return
        f.separator('the code id')
        const raw = f.word('the code id')
        const codeId = normalizeCodeId(raw)
        if (!codeId) f.fail(`the code id "${raw.slice(0, 80)}" is not hex`)
        this.identity.codeId = codeId
        return
      }
      case 'MODULE':
        f.fail('a second MODULE record')
        break
      default:
        if (/^[A-Z][A-Z0-9_]*$/.test(kind)) return // a record kind this parser does not know
        f.fail(`not a Breakpad record: "${text.slice(0, 40)}"`)
    }
  }

  private inline(text: string, lineNumber: number): void {
    if (!this.inFunction) throw new BreakpadSymError('an INLINE record before any FUNC record', lineNumber)
    const tokens = text.slice(6).trim().split(/[ \t]+/)
    // depth, call line, [call file], origin, then address/size pairs: an even count has the call file.
    if (tokens.length < 5) throw new BreakpadSymError('an INLINE record needs a depth, a call line, a call file, an origin and at least one address range', lineNumber)
    const withFile = tokens.length % 2 === 0
    const decimal = (k: number, what: string) => {
      const token = tokens[k]!
      if (!/^\d{1,10}$/.test(token) || Number(token) > MAX_U32) throw new BreakpadSymError(`the INLINE record's ${what} is not a decimal number`, lineNumber)
      return Number(token)
    }
    const depth = decimal(0, 'depth')
    const callLine = decimal(1, 'call line')
    const callFile = withFile ? decimal(2, 'call file') : -1
    const origin = decimal(withFile ? 3 : 2, 'origin')
    const ranges: Array<[number, number]> = []
    for (let k = withFile ? 4 : 3; k + 1 < tokens.length; k += 2) {
      const address = tokens[k]!
      const size = tokens[k + 1]!
      if (!/^[0-9a-fA-F]{1,14}$/.test(address) || !/^[0-9a-fA-F]{1,14}$/.test(size)) throw new BreakpadSymError('an INLINE address range is not two hex numbers', lineNumber)
      const range: [number, number] = [parseInt(address, 16), parseInt(size, 16)]
      if (range[0] > MAX_SAFE || range[1] > MAX_SAFE) throw new BreakpadSymError('an INLINE address range is too large (more than 2^53)', lineNumber)
      ranges.push(range)
    }
    this.sink.inline(depth, callLine, callFile, origin, ranges)
  }
}

/**
 * Parses a Breakpad .sym file, from a Buffer or a stream of chunks, into `sink`. Resolves to the
 * module's identity (MODULE line, and INFO CODE_ID when present); rejects with a BreakpadSymError.
 */
export async function parseBreakpadSym(input: AsyncIterable<Buffer | Uint8Array | string> | Buffer, sink: SymbolSink, options: { maxLineLength?: number } = {}): Promise<ModuleLine> {
  const maxLength = options.maxLineLength ?? MAX_SYM_LINE_LENGTH
  const parser = new SymParser(sink)
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let lineNumber = 0
  let first = true

  const feed = (text: string) => {
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      first = false
    }
    let from = 0
    if (pending.length > 0) {
      const newline = text.indexOf('\n')
      if (newline < 0) {
        pending += text
        if (pending.length > maxLength) throw new BreakpadSymError(`longer than ${maxLength} characters`, lineNumber + 1)
        return
      }
      pending += text.slice(0, newline)
      line(pending)
      pending = ''
      from = newline + 1
    }
    for (;;) {
      const newline = text.indexOf('\n', from)
      if (newline < 0) break
      line(text.slice(from, newline))
      from = newline + 1
    }
    pending = text.slice(from)
    if (pending.length > maxLength) throw new BreakpadSymError(`longer than ${maxLength} characters`, lineNumber + 1)
  }
  const line = (raw: string) => {
    lineNumber++
    const text = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw
    if (text.length > maxLength) throw new BreakpadSymError(`longer than ${maxLength} characters`, lineNumber)
    parser.line(text, lineNumber)
  }

  if (Buffer.isBuffer(input)) {
    // Decoded a slice at a time, so a huge upload is never one huge string.
    const step = 4 * 1024 * 1024
    for (let at = 0; at < input.length; at += step) feed(decoder.write(input.subarray(at, at + step)))
  } else {
    for await (const chunk of input) feed(typeof chunk === 'string' ? chunk : decoder.write(chunk instanceof Buffer ? chunk : Buffer.from(chunk)))
  }
  feed(decoder.end())
  if (pending.length > 0) line(pending)
  if (!parser.identity) throw new BreakpadSymError('empty: a symbol file starts with a MODULE record', null)
  return parser.identity
}

/**
 * The MODULE line (and INFO CODE_ID, when it is among the bytes given) from a symbol file's first
 * bytes, for the upload form and for a quick look before the whole file is read. Null when the
 * first line is not a readable MODULE record.
 */
export function readModuleLine(firstBytes: Buffer): ModuleLine | null {
  const text = firstBytes.subarray(0, MAX_SYM_LINE_LENGTH).toString('utf8').replace(/^\ufeff/, '')
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''))
  // Text after the last newline may be cut short: use it only when there is no newline at all.
  const complete = lines.length > 1 ? lines.slice(0, -1) : lines
  const parser = new SymParser({ file() {}, inlineOrigin() {}, func() {}, line() {}, inline() {}, publicSymbol() {} })
  try {
    parser.line(complete[0] ?? '', 1)
    for (let k = 1; k < Math.min(complete.length, 8); k++) {
      const line = complete[k]!
      if (line.startsWith('INFO ')) parser.line(line, k + 1)
      else if (line.length > 0) break
    }
  } catch (error) {
    if (error instanceof BreakpadSymError) return parser.identity
    throw error
  }
  return parser.identity
}

/** Reads a .sym file into a SymCache in one pass: the identity it names and the SymCache's Buffer. */
export async function symCacheFromBreakpad(input: AsyncIterable<Buffer | Uint8Array | string> | Buffer): Promise<{ identity: ModuleLine; symCache: Buffer }> {
  const builder = createSymCacheBuilder()
  const identity = await parseBreakpadSym(input, builder)
  const { debugId, codeId, os, arch, moduleName } = identity
  return { identity, symCache: builder.finish({ debugId, codeId, os, arch, moduleName }) }
}
