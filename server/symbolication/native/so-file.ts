// An uploaded `soFile` (Bugsnag's NDK upload field): an ELF shared object or its debug-only
// extract, as it is or gzipped. This tells the kinds apart by their first bytes, unpacks gzip
// within a size cap, reads the ELF into a SymbolSink, and turns every problem into a
// NativeUploadError whose message says what is wrong in words the uploader can act on.
import { gunzipSync } from 'node:zlib'
import { DwarfError } from './dwarf-line.ts'
import { ElfError } from './elf.ts'
import { readElfSymbols, type ElfModuleInfo, type ElfSymbolsOptions } from './elf-symbols.ts'
import type { SymbolSink } from './native-symbols.ts'

/** An upload that cannot be read; the message starts with the field's name ("soFile: …"). */
export class NativeUploadError extends Error {
  override name = 'NativeUploadError'
}

export interface SoFileOptions extends ElfSymbolsOptions {
  /** The most bytes the object may have, unpacked (a gzip bomb is refused past it). */
  maxBytes: number
}

/** Other kinds of file people upload by mistake, by their first bytes. */
const OTHER_KINDS: [prefix: Buffer, says: string][] = [
  [Buffer.from('28b52ffd', 'hex'), 'compressed with zstd, which is not supported; upload the .so as it is or gzipped'],
  [Buffer.from('PK\x03\x04', 'latin1'), 'a zip archive (an .apk or .aar?), not an ELF shared object; upload the .so inside it (lib/<abi>/lib….so)'],
  [Buffer.from('MODULE ', 'latin1'), 'a Breakpad symbol file (.sym), not an ELF shared object'],
  [Buffer.from('MDMP', 'latin1'), 'a minidump, not an ELF shared object'],
  [Buffer.from('MZ', 'latin1'), 'a Windows executable or DLL, not an ELF shared object'],
  [Buffer.from('cffaedfe', 'hex'), 'a Mach-O file (Apple), not an ELF shared object'],
  [Buffer.from('cefaedfe', 'hex'), 'a Mach-O file (Apple), not an ELF shared object'],
  [Buffer.from('!<arch>\n', 'latin1'), 'a static library (.a), not a shared object; upload the linked .so'],
]

function describeStart(buf: Buffer): string {
  const head = buf.subarray(0, 8)
  const text = head.toString('latin1')
  const printable = /^[\x20-\x7e]+$/.test(text) ? ` "${text}"` : ''
  return `${[...head].map((b) => b.toString(16).padStart(2, '0')).join(' ')}${printable}`
}

function refuseNonElf(buf: Buffer, after: string): never {
  if (buf.length === 0) throw new NativeUploadError(`soFile: is empty${after}`)
  for (const [prefix, says] of OTHER_KINDS) if (buf.subarray(0, prefix.length).equals(prefix)) throw new NativeUploadError(`soFile: ${says}`)
  throw new NativeUploadError(`soFile: not an ELF shared object (it starts with ${describeStart(buf)})${after}`)
}

/** The ELF object an upload holds: itself, or gunzipped (at most `maxBytes`). Throws NativeUploadError otherwise. */
export function unpackSoFile(buf: Buffer, options: { maxBytes: number }): Buffer {
  const isElf = (b: Buffer) => b.length >= 4 && b.readUInt32BE(0) === 0x7f454c46
  if (buf.length > options.maxBytes) throw new NativeUploadError(`soFile: ${buf.length} bytes, more than the ${options.maxBytes} allowed`)
  if (isElf(buf)) return buf
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    let unpacked: Buffer
    try {
      unpacked = gunzipSync(buf, { maxOutputLength: options.maxBytes })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new NativeUploadError(`soFile: unpacks to more than the ${options.maxBytes} bytes allowed`)
      }
      throw new NativeUploadError(`soFile: a damaged gzip file (${(err as Error).message})`)
    }
    if (isElf(unpacked)) return unpacked
    refuseNonElf(unpacked, ' after gunzip')
  }
  refuseNonElf(buf, '')
}

/**
 * Reads an uploaded `soFile` into `sink`: unpacks it, then reads its symbols, line tables and
 * identity (elf-symbols.ts). Throws NativeUploadError ("soFile: …") for anything it cannot use.
 */
export function readSoFile(buf: Buffer, sink: SymbolSink, options: SoFileOptions): ElfModuleInfo {
  const elf = unpackSoFile(buf, options)
  try {
    return readElfSymbols(elf, sink, { ...options, maxSectionBytes: options.maxSectionBytes ?? options.maxBytes })
  } catch (err) {
    if (err instanceof ElfError) throw new NativeUploadError(`soFile: ${err.message}`)
    if (err instanceof DwarfError) throw new NativeUploadError(`soFile: its line table (.debug_line) cannot be read: ${err.message}`)
    throw err
  }
}
