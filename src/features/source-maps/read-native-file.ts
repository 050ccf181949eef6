// What the upload forms read of a native symbol file in the browser before sending it: the MODULE
// line of a Breakpad .sym, and the kind and GNU build id of a shared object (.so, its debug
// extract, or .so.gz). Every read is bounds-checked; a file that cannot be read this way is
// refused only when it is plainly not the kind asked for (the server checks the whole file).

/** A .sym file's MODULE line (and INFO CODE_ID when it follows), as dump_syms writes them. */
export interface ModuleLine {
  os: string
  /** The CPU as the line spells it (arm64, x86_64, …). */
  cpu: string
  /** 33 to 40 upper-case hex digits: what events' modules are matched on. */
  debugId: string
  name: string
  /** The GNU build id, when an INFO CODE_ID line names it. */
  codeId: string | null
}

export type SymCheck = { ok: true; module: ModuleLine } | { ok: false; problem: string }

/** How much of a .sym is read in the browser: the MODULE line and the INFO lines after it. */
export const SYM_HEAD_BYTES = 4096

const HEX = /^[0-9a-fA-F]+$/

/** Words for files people drop on the wrong form, by their first characters. */
function otherKind(head: string): string | null {
  if (head.startsWith('\x7fELF')) return 'a shared library (ELF); drop it on the shared library form instead'
  if (head.startsWith('\x1f\x8b')) return 'a gzip file; unpack it first, or drop a .so.gz on the shared library form'
  if (head.startsWith('MDMP')) return 'a minidump (a crash report), not a symbol file; crash reporters send these to /minidump'
  if (head.startsWith('PK\x03\x04')) return 'a zip archive; unpack the .sym file from it'
  return null
}

/**
 * The MODULE line of a .sym file's first bytes (`MODULE Linux arm64 78E6…F60 libcrash.so`), with
 * an INFO CODE_ID line among the next few; a problem in words when the file does not start so.
 */
export function readModuleLine(head: string, fileName: string): SymCheck {
  const text = head.replace(/^\ufeff/, '')
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''))
  const first = lines[0] ?? ''
  const refuse = (why: string): SymCheck => ({ ok: false, problem: `${fileName} is not a Breakpad symbol file: ${why}` })
  if (text.trim() === '') return refuse('it is empty.')
  const other = otherKind(text)
  if (other) return refuse(`it is ${other}.`)
  if (!/^MODULE[ \t]/.test(first)) {
    return refuse('its first line should start with “MODULE”, as the files dump_syms writes do. Was it saved as a web page or an error message?')
  }
  const match = /^MODULE[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(.+)$/.exec(first.trimEnd())
  if (!match) return refuse('its MODULE line should name the system, the CPU, the debug id and the module, in that order.')
  const [, os, cpu, rawId, name] = match as unknown as [string, string, string, string, string]
  const id = rawId.replaceAll('-', '')
  if (!HEX.test(id) || id.length < 32 || id.length > 40) {
    return refuse(`its debug id “${rawId.slice(0, 60)}” should be 33 hexadecimal digits.`)
  }
  let codeId: string | null = null
  for (const line of lines.slice(1, 8)) {
    const info = /^INFO[ \t]+CODE_ID[ \t]+([0-9a-fA-F]+)\b/.exec(line)
    if (info) codeId = info[1]!.toLowerCase()
    else if (line !== '' && !line.startsWith('INFO')) break
  }
  return { ok: true, module: { os, cpu, debugId: (id.length === 32 ? `${id}0` : id).toUpperCase(), name: name.trim(), codeId } }
}

/** Reads `length` bytes at `offset` of a file; fewer (or none) past its end. */
export type ByteReader = (offset: number, length: number) => Promise<Uint8Array>

export type SharedObjectKind = { kind: 'elf' } | { kind: 'gzip' } | { kind: 'other'; problem: string }

/** Tells an ELF object (7f 45 4c 46) and gzip (1f 8b) from anything else by the first bytes, in words. */
export function sniffSharedObject(head: Uint8Array, fileName: string): SharedObjectKind {
  if (head.length >= 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) return { kind: 'elf' }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return { kind: 'gzip' }
  const text = String.fromCharCode(...head.subarray(0, 8))
  const why =
    head.length === 0
      ? 'it is empty'
      : text.startsWith('MODULE')
        ? 'it is a Breakpad symbol file (.sym); drop it on the .sym form instead'
        : text.startsWith('PK\x03\x04')
          ? 'it is a zip archive (an .apk or .aar?); upload the .so inside it, from lib/<abi>/'
          : text.startsWith('MDMP')
            ? 'it is a minidump (a crash report), not a library'
            : text.startsWith('MZ')
              ? 'it is a Windows executable or DLL'
              : text.startsWith('!<arch>')
                ? 'it is a static library (.a); upload the linked .so'
                : 'a shared library starts with the bytes 7f 45 4c 46 (“ELF”), or 1f 8b when gzipped'
  return { kind: 'other', problem: `${fileName} is not a shared library (.so): ${why}.` }
}

/** What the browser could read of an ELF object's header and notes. */
export interface ElfFacts {
  /** Lower-case hex; null when no GNU build id note was found in what was read. */
  buildId: string | null
  /** x86, x86_64, arm, arm64, … or the ELF machine number when it is none of these. */
  arch: string
  bits: 32 | 64
}

const MACHINES: Record<number, string> = { 3: 'x86', 8: 'mips', 40: 'arm', 62: 'x86_64', 183: 'arm64', 243: 'riscv' }
const PT_NOTE = 4
const SHT_NOTE = 7
const NT_GNU_BUILD_ID = 3
/** Note areas larger than this are not read: a build id note is 36 bytes, a few notes at most sit beside it. */
const MAX_NOTES_BYTES = 64 * 1024
/** Program or section headers beyond this many are not read. */
const MAX_HEADERS = 4096

/** The GNU build id in a run of notes (each: namesz, descsz, type, name, desc, padded to `align`). */
function buildIdInNotes(notes: DataView, little: boolean, align: number): string | null {
  const pad = (n: number) => Math.ceil(n / align) * align
  let at = 0
  while (at + 12 <= notes.byteLength) {
    const nameSize = notes.getUint32(at, little)
    const descSize = notes.getUint32(at + 4, little)
    const type = notes.getUint32(at + 8, little)
    const nameAt = at + 12
    const descAt = nameAt + pad(nameSize)
    const end = descAt + pad(descSize)
    if (nameSize > notes.byteLength || descSize > notes.byteLength || descAt + descSize > notes.byteLength) return null
    const isGnu =
      nameSize === 4 &&
      notes.getUint8(nameAt) === 0x47 && // G
      notes.getUint8(nameAt + 1) === 0x4e && // N
      notes.getUint8(nameAt + 2) === 0x55 && // U
      notes.getUint8(nameAt + 3) === 0
    if (isGnu && type === NT_GNU_BUILD_ID && descSize > 0 && descSize <= 64) {
      let hex = ''
      for (let k = 0; k < descSize; k++) hex += notes.getUint8(descAt + k).toString(16).padStart(2, '0')
      return hex
    }
    if (end <= at) return null
    at = end
  }
  return null
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * Reads an ELF object's class, machine and GNU build id: the notes named by its program headers
 * (PT_NOTE), else by its section headers (SHT_NOTE). Null when it is not an ELF object whose
 * header can be read; `buildId` null when no note says it.
 */
export async function readElfBuildId(read: ByteReader): Promise<ElfFacts | null> {
  const header = await read(0, 64)
  if (header.length < 52 || header[0] !== 0x7f || header[1] !== 0x45 || header[2] !== 0x4c || header[3] !== 0x46) return null
  const bits = header[4] === 2 ? 64 : header[4] === 1 ? 32 : null
  const little = header[5] === 1 ? true : header[5] === 2 ? false : null
  if (bits === null || little === null || (bits === 64 && header.length < 64)) return null
  const h = view(header)
  const machine = h.getUint16(18, little)
  const arch = MACHINES[machine] ?? `machine ${machine}`
  const word = (v: DataView, at: number) => (bits === 64 ? Number(v.getBigUint64(at, little)) : v.getUint32(at, little))
  const facts = (buildId: string | null): ElfFacts => ({ buildId, arch, bits })

  // Each table: where it is, how long each entry is, how many; and where in an entry type, offset, size and alignment are.
  const tables = [
    {
      offset: word(h, bits === 64 ? 32 : 28),
      entrySize: h.getUint16(bits === 64 ? 54 : 42, little),
      count: h.getUint16(bits === 64 ? 56 : 44, little),
      type: PT_NOTE,
      fields: bits === 64 ? { offset: 8, size: 32, align: 48 } : { offset: 4, size: 16, align: 28 },
    },
    {
      offset: word(h, bits === 64 ? 40 : 32),
      entrySize: h.getUint16(bits === 64 ? 58 : 46, little),
      count: h.getUint16(bits === 64 ? 60 : 48, little),
      type: SHT_NOTE,
      fields: bits === 64 ? { offset: 24, size: 32, align: 48 } : { offset: 16, size: 20, align: 32 },
    },
  ]
  for (const table of tables) {
    const entryNeeds = table.fields.align + (bits === 64 ? 8 : 4)
    if (table.offset === 0 || table.count === 0 || table.entrySize < entryNeeds || !Number.isSafeInteger(table.offset)) continue
    const count = Math.min(table.count, MAX_HEADERS)
    const entries = await read(table.offset, count * table.entrySize)
    const v = view(entries)
    for (let k = 0; (k + 1) * table.entrySize <= entries.length; k++) {
      const at = k * table.entrySize
      // The type is the first word of a program header, the second of a section header.
      if (v.getUint32(at + (table.type === PT_NOTE ? 0 : 4), little) !== table.type) continue
      const offset = word(v, at + table.fields.offset)
      const size = word(v, at + table.fields.size)
      const align = word(v, at + table.fields.align) === 8 ? 8 : 4
      if (!Number.isSafeInteger(offset) || size <= 0 || size > MAX_NOTES_BYTES) continue
      const notes = await read(offset, size)
      const buildId = buildIdInNotes(view(notes), little, align)
      if (buildId) return facts(buildId)
    }
  }
  return facts(null)
}

/** A reader over bytes already in memory (a gzip file's unpacked start, a test's fixture). */
export const bytesReader =
  (bytes: Uint8Array): ByteReader =>
  async (offset, length) =>
    offset >= bytes.length ? new Uint8Array(0) : bytes.subarray(offset, Math.min(bytes.length, offset + length))

/** How much of a .so.gz is unpacked in the browser: its notes sit in the first pages. */
export const GZIP_HEAD_BYTES = 1024 * 1024

/** The first `max` bytes a gzip stream unpacks to (fewer if it is shorter); stops reading there. */
export async function gunzipHead(compressed: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const reader = compressed.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>).getReader()
  const out = new Uint8Array(max)
  let length = 0
  try {
    while (length < max) {
      const { done, value } = await reader.read()
      if (done) break
      const take = Math.min(value.length, max - length)
      out.set(value.subarray(0, take), length)
      length += take
    }
  } finally {
    // Enough read: the rest of the file is neither unpacked nor kept.
    void reader.cancel().catch(() => undefined)
  }
  return out.subarray(0, length)
}

/**
 * The Breakpad debug id a build id matches (what a .sym of the same library names): its first 16
 * bytes as a GUID whose first three fields are byte-swapped, upper-case, plus the age 0.
 */
export function debugIdFromBuildId(buildId: string): string {
  const hex = buildId.slice(0, 32).padEnd(32, '0')
  const bytes = hex.match(/../g)!
  const swapped = [...bytes.slice(0, 4).reverse(), ...bytes.slice(4, 6).reverse(), ...bytes.slice(6, 8).reverse(), ...bytes.slice(8)]
  return `${swapped.join('').toUpperCase()}0`
}

export type SharedObjectCheck =
  | { ok: true; gzipped: boolean; elf: ElfFacts | null }
  | { ok: false; problem: string }

/**
 * What the .so form shows before uploading: ELF or gzip (anything else refused in words), and for
 * either the build id when the browser can find it (`elf` null when it could not read the header:
 * the server reads it on upload).
 */
export async function checkSharedObject(file: Blob, fileName: string): Promise<SharedObjectCheck> {
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer())
  const sniffed = sniffSharedObject(head, fileName)
  if (sniffed.kind === 'other') return { ok: false, problem: sniffed.problem }
  if (sniffed.kind === 'elf') {
    const elf = await readElfBuildId(async (offset, length) => new Uint8Array(await file.slice(offset, offset + length).arrayBuffer()))
    return { ok: true, gzipped: false, elf }
  }
  try {
    if (typeof DecompressionStream !== 'function') return { ok: true, gzipped: true, elf: null }
    const unpacked = await gunzipHead(file.stream(), GZIP_HEAD_BYTES)
    const kind = sniffSharedObject(unpacked.subarray(0, 8), fileName)
    if (kind.kind === 'other' && unpacked.length >= 4) {
      return { ok: false, problem: `${fileName} is gzipped, but what it holds is not a shared library (.so): it should start with 7f 45 4c 46 (“ELF”).` }
    }
    return { ok: true, gzipped: true, elf: await readElfBuildId(bytesReader(unpacked)) }
  } catch {
    // A damaged gzip: the server says what is wrong with it.
    return { ok: true, gzipped: true, elf: null }
  }
}

/**
 * The library name a dropped file suggests ("libgame.so" of "libgame.so.gz" or "libgame.so.debug"),
 * sent when the form's name is left empty: the server takes the library's own name (DT_SONAME)
 * first, and without one this is better than none. Null for a file not named like a library.
 */
export function libraryNameOf(fileName: string): string | null {
  const name = fileName.replace(/\.gz$/i, '').replace(/\.(debug|dbg)$/i, '')
  return /\.so(\.\d+)*$/.test(name) ? name : null
}
