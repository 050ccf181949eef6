import { readFileSync } from 'node:fs'
import { deflateSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ElfObject } from './elf.ts'
import { RecordingSink } from '../../test-support/recording-symbol-sink.ts'
import { NativeUploadError, readSoFile, unpackSoFile } from './so-file.ts'

const dir = new URL('../../../test/fixtures/native/', import.meta.url)
const fixture = (name: string) => readFileSync(new URL(name, dir))
const MB = 1024 * 1024

function refusal(buf: Buffer, maxBytes = 16 * MB): string {
  try {
    readSoFile(buf, new RecordingSink(), { maxBytes })
  } catch (err) {
    expect(err).toBeInstanceOf(NativeUploadError)
    return (err as Error).message
  }
  throw new Error('read, not refused')
}

/** A copy of `name` with `patch` applied to the section called `section`. */
function patched(name: string, section: string, patch: (copy: Buffer, offset: number) => void): Buffer {
  const copy = Buffer.from(fixture(name))
  const found = new ElfObject(copy).sections.find((s) => s.name === section)
  if (!found) throw new Error(`${name} has no ${section}`)
  patch(copy, found.offset)
  return copy
}

describe('soFile uploads', () => {
  it('tells an ELF object and a gzipped one apart, and unpacks within the cap', () => {
    const elf = fixture('libfixture.so')
    expect(unpackSoFile(elf, { maxBytes: MB })).toBe(elf)
    expect(unpackSoFile(gzipSync(elf), { maxBytes: MB }).equals(elf)).toBe(true)
  })

  it('refuses what is not an ELF object, saying what it looks like', () => {
    expect(refusal(Buffer.alloc(0))).toBe('soFile: is empty')
    expect(refusal(Buffer.from('<html><body>Not found</body></html>'))).toBe('soFile: not an ELF shared object (it starts with 3c 68 74 6d 6c 3e 3c 62 "<html><b")')
    expect(refusal(Buffer.from([0, 1, 2, 0xff]))).toBe('soFile: not an ELF shared object (it starts with 00 01 02 ff)')
    expect(refusal(Buffer.from('PK\x03\x04rest of an apk', 'latin1'))).toMatch(/^soFile: a zip archive \(an \.apk or \.aar\?\)/)
    expect(refusal(Buffer.from('MODULE Linux arm64 0123 libx.so\n'))).toBe('soFile: a Breakpad symbol file (.sym), not an ELF shared object')
    expect(refusal(Buffer.from('28b52ffd0000', 'hex'))).toBe('soFile: compressed with zstd, which is not supported; upload the .so as it is or gzipped')
    expect(refusal(gzipSync(Buffer.from('just text')))).toBe('soFile: not an ELF shared object (it starts with 6a 75 73 74 20 74 65 78 "just tex") after gunzip')
  })

  it('refuses a gzip bomb and a damaged gzip file', () => {
    expect(refusal(gzipSync(Buffer.alloc(8 * MB)), MB)).toBe(`soFile: unpacks to more than the ${MB} bytes allowed`)
    expect(refusal(Buffer.alloc(2 * MB), MB)).toBe(`soFile: ${2 * MB} bytes, more than the ${MB} allowed`)
    const gz = gzipSync(fixture('libfixture.so'))
    expect(refusal(gz.subarray(0, gz.length >> 1))).toMatch(/^soFile: a damaged gzip file \(/)
  })

  it('refuses a truncated ELF object', () => {
    const elf = fixture('libfixture.so')
    expect(refusal(elf.subarray(0, 40))).toBe('soFile: truncated ELF: the file ends inside the ELF header')
    expect(refusal(elf.subarray(0, 0x3000))).toBe('soFile: truncated ELF: section header table past the end of the file')
  })

  it('refuses an object without a GNU build id', () => {
    // NT_GNU_BUILD_ID (3) → 0 in the note's type field.
    const noId = patched('libfixture.so', '.note.gnu.build-id', (copy, at) => copy.writeUInt32LE(0, at + 8))
    expect(refusal(noId)).toBe('soFile: has no GNU build id; link with -Wl,--build-id (the Android NDK does by default)')
  })

  it('reads the build id from PT_NOTE when the section headers are gone', () => {
    const copy = Buffer.from(fixture('libcrash.aarch64.stripped.so'))
    copy.writeBigUInt64LE(0n, 0x28) // e_shoff
    copy.writeUInt16LE(0, 0x3c) // e_shnum
    copy.writeUInt16LE(0, 0x3e) // e_shstrndx
    const info = readSoFile(copy, new RecordingSink(), { maxBytes: MB })
    expect(info).toMatchObject({ codeId: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a', hasSymbols: false, hasLineInfo: false })
  })

  it('refuses zstd-compressed debug sections, and compressed sections that do not unpack', () => {
    // ch_type ELFCOMPRESS_ZLIB (1) → ELFCOMPRESS_ZSTD (2).
    const zstd = patched('libfixture.so.debug', '.debug_line', (copy, at) => copy.writeUInt32LE(2, at))
    expect(refusal(zstd)).toBe('soFile: compressed with zstd, which is not supported; use zlib (objcopy --compress-debug-sections=zlib) or none')
    const damaged = patched('libfixture.so.debug', '.debug_line', (copy, at) => copy.fill(0x55, at + 24, at + 40))
    expect(refusal(damaged)).toMatch(/^soFile: section \.debug_line is damaged: it does not unpack/)
    const big = patched('libfixture.so.debug', '.debug_line', (copy, at) => copy.writeBigUInt64LE(BigInt(64 * MB), at + 8))
    expect(refusal(big, 32 * MB)).toBe(`soFile: section .debug_line unpacks to ${64 * MB} bytes, more than the ${32 * MB} allowed`)
    const zdebug = patched('libcrash.armv7.so.debug', '.zdebug_line', (copy, at) => copy.write('ZSTD', at, 'latin1'))
    expect(refusal(zdebug)).toBe('soFile: section .zdebug_line is not zlib-compressed as its name says')
  })

  it('refuses relocatable objects and core dumps', () => {
    const object = Buffer.from(fixture('libfixture.so'))
    object.writeUInt16LE(1, 16)
    expect(refusal(object)).toBe('soFile: a relocatable object file (.o), not a linked shared object; upload the linked .so')
    object.writeUInt16LE(4, 16)
    expect(refusal(object)).toBe('soFile: a core dump, not a shared object')
  })

  it('refuses a line table it cannot read, saying so', () => {
    // The first line table's version (after its 4-byte length) → 9.
    const badVersion = patched('libcrash.aarch64.so', '.debug_line', (copy, at) => copy.writeUInt16LE(9, at + 4))
    expect(refusal(badVersion)).toBe('soFile: its line table (.debug_line) cannot be read: unsupported DWARF line table version 9')
    const recompressed = patched('libfixture.so.debug', '.debug_line', (copy, at) => {
      const body = deflateSync(Buffer.from([0xf0, 0xff, 0xff, 0xff]))
      copy.writeBigUInt64LE(4n, at + 8)
      body.copy(copy, at + 24)
    })
    expect(refusal(recompressed)).toBe('soFile: its line table (.debug_line) cannot be read: malformed DWARF: reserved unit length 0xfffffff0')
  })
})
