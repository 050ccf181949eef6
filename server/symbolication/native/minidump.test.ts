import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { framePointerStack, writeMinidump, type MinidumpSpec, type WriterArch } from '../../test-support/minidump-writer.ts'
import { moduleAt, MinidumpError, parseMinidump } from './minidump.ts'

const fixture = readFileSync(new URL('../../../test/fixtures/native/windows-x86-test.dmp', import.meta.url))

const BUILD_ID = 'b060ad20c6b47781552708aa192e7739fac7c84a'
const BUILD_ID_DEBUG_ID = '20AD60B0B4C68177552708AA192E77390'

function spec(arch: WriterArch, overrides: Partial<MinidumpSpec> = {}): MinidumpSpec {
  const wide = arch === 'x86_64' || arch === 'arm64'
  const app = wide ? 0x5555_0000_0000n : 0x0800_0000n
  const { stack, sp, fp } = framePointerStack(arch, { base: wide ? 0x7ffd_0000_0000n : 0xbf00_0000n, returnAddresses: [app + 0x1234n, app + 0x2000n] })
  return {
    arch,
    os: 'linux',
    osVersion: { major: 6, minor: 1, build: 0, csd: 'Linux 6.1.0 #1 SMP' },
    modules: [
      { name: '/usr/bin/app', base: app, size: 0x10000, buildId: BUILD_ID },
      { name: 'short.so', base: app + 0x100000n, size: 0x1000, buildId: '0001020304050607' },
      { name: 'font.ttf', base: app + 0x200000n, size: 0x1000, buildId: '00000000' },
      { name: 'no-codeview.so', base: app + 0x300000n, size: 0x1000 },
    ],
    crashingThread: { id: 42, pc: app + 0x100n, sp, fp, lr: app + 0x1234n, stack, registers: wide ? { x19: 19, rbx: 3 } : { r4: 4, ebx: 3 } },
    threads: [{ id: 43, pc: app + 0x200n, sp, fp: 0, stack }],
    exception: { code: 11, address: 0xdeadn },
    ...overrides,
  }
}

/** Where a stream's bytes are, by type. */
function streamAt(dump: Buffer, type: number): { rva: number; size: number; entry: number } {
  const count = dump.readUInt32LE(8)
  const directory = dump.readUInt32LE(12)
  for (let i = 0; i < count; i++) {
    const entry = directory + i * 12
    if (dump.readUInt32LE(entry) === type) return { rva: dump.readUInt32LE(entry + 8), size: dump.readUInt32LE(entry + 4), entry }
  }
  throw new Error(`no stream ${type}`)
}

function patched(dump: Buffer, patch: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(dump)
  patch(copy)
  return copy
}

function expectError(buf: Buffer, message?: RegExp): void {
  let thrown: unknown
  try {
    parseMinidump(buf)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(MinidumpError)
  if (message) expect((thrown as Error).message).toMatch(message)
}

describe('parseMinidump on a real Windows x86 dump (rust-minidump testdata/test.dmp)', () => {
  const dump = parseMinidump(fixture)

  it('reads the system info', () => {
    expect(dump.systemInfo).toMatchObject({ arch: 'x86', os: 'windows', osVersion: '5.1.2600 Service Pack 2', cpuCount: 1 })
    expect(dump.arch).toBe('x86')
  })

  it('reads the module list with RSDS debug ids and PE code ids, as rust-minidump does', () => {
    expect(dump.modules).toHaveLength(13)
    expect(dump.modules[0]).toEqual({
      name: 'c:\\test_app.exe',
      base: 0x400000n,
      size: 0x2d000,
      debugId: '5A9832E5287241C1838ED98914E9B7FF1',
      codeId: '45D35F6C2d000',
      debugFile: 'c:\\test_app.pdb',
    })
    expect(dump.modules[12]).toEqual({
      name: 'C:\\WINDOWS\\system32\\psapi.dll',
      base: 0x76bf0000n,
      size: 0xb000,
      debugId: 'A5C3A1F9689F43D8AD228A09293889702',
      codeId: '411096CAb000',
      debugFile: 'psapi.pdb',
    })
    expect(moduleAt(dump, 0x400000n)?.name).toBe('c:\\test_app.exe')
    expect(moduleAt(dump, 0x42d000n)).toBeNull()
  })

  it('reads the exception and its context', () => {
    expect(dump.exception).toMatchObject({ threadId: 0xbf4, code: 0xc0000005 })
    expect(dump.exception?.context).toMatchObject({ arch: 'x86', pc: 0x40429en, sp: 0x12fe84n, fp: 0x12fe88n })
  })

  it('reads the threads, their contexts and stacks', () => {
    expect(dump.threads.map((t) => t.id)).toEqual([0xbf4, 0x11c0])
    expect(dump.threads[0]?.context).toMatchObject({ pc: 0x7c90eb94n, sp: 0x12f320n })
    const stack = dump.threads[0]!.stack!
    expect(stack.base).toBe(0x12f31cn)
    expect(stack.bytes.readBigUInt64LE(0x12f31c - 0x12f31c)).toBe(0x7c90e9c000000000n)
    expect(stack.bytes.readBigUInt64LE(0x12fff8 - 0x12f31c)).toBe(0x405443n)
  })
})

describe('parseMinidump on synthesized dumps', () => {
  it.each(['x86', 'x86_64', 'arm', 'arm64'] as const)('reads a %s dump', (arch) => {
    const input = spec(arch)
    const dump = parseMinidump(writeMinidump(input))
    expect(dump.arch).toBe(arch)
    expect(dump.systemInfo).toMatchObject({ arch, os: 'linux', osVersion: '6.1.0 Linux 6.1.0 #1 SMP' })
    expect(dump.threads.map((t) => t.id)).toEqual([42, 43])
    const context = dump.exception!.context!
    expect(context.arch).toBe(arch)
    expect(context.pc).toBe(BigInt(input.crashingThread.pc))
    expect(context.sp).toBe(BigInt(input.crashingThread.sp))
    expect(context.fp).toBe(BigInt(input.crashingThread.fp))
    expect(context.lr).toBe(arch === 'arm' || arch === 'arm64' ? BigInt(input.crashingThread.lr!) : null)
    expect(dump.exception).toMatchObject({ threadId: 42, code: 11, address: 0xdeadn })
    expect(dump.threads[0]!.stack!.bytes.equals(input.crashingThread.stack!.bytes)).toBe(true)
    // The memory list repeats both stacks; the threads' stacks are indexed too.
    expect(dump.memory.length).toBe(4)
    const names = { x86: 'ebx', x86_64: 'rbx', arm: 'r4', arm64: 'x19' } as const
    expect(context.registers[names[arch]]).toBe(arch === 'arm' ? 4n : arch === 'arm64' ? 19n : 3n)
  })

  it('reads both arm64 context layouts: Breakpad (0x8003, old) and Microsoft (12)', () => {
    for (const arm64Layout of ['breakpad', 'microsoft'] as const) {
      const dump = parseMinidump(writeMinidump(spec('arm64', { arm64Layout })))
      expect(dump.systemInfo?.processorArchitecture).toBe(arm64Layout === 'breakpad' ? 0x8003 : 12)
      expect(dump.exception!.context).toMatchObject({ pc: 0x5555_0000_0100n, sp: 0x7ffd_0000_0000n, fp: 0x7ffd_0000_0040n, lr: 0x5555_0000_1234n })
    }
  })

  it('reads the Thumb bit and r7 as the arm frame pointer in Thumb code', () => {
    const input = spec('arm')
    const dump = parseMinidump(writeMinidump({ ...input, crashingThread: { ...input.crashingThread, thumb: true, fp: 0xbf00_0080 } }))
    expect(dump.exception!.context).toMatchObject({ thumb: true, fp: 0xbf00_0080n })
    expect(dump.exception!.context!.registers.r7).toBe(0xbf00_0080n)
  })

  it('turns a BpEL build id into a Breakpad debug id and a code id', () => {
    const dump = parseMinidump(writeMinidump(spec('arm64')))
    expect(dump.modules.map((m) => [m.name, m.debugId, m.codeId, m.debugFile])).toEqual([
      ['/usr/bin/app', BUILD_ID_DEBUG_ID, BUILD_ID, '/usr/bin/app'],
      // Shorter than 16 bytes: zero-padded (rust-minidump's test_elf_build_id).
      ['short.so', '030201000504070600000000000000000', '0001020304050607', 'short.so'],
      // An all-zero build id (fonts, jars) identifies nothing.
      ['font.ttf', null, null, 'font.ttf'],
      ['no-codeview.so', null, null, null],
    ])
  })

  it('turns an RSDS record into GUID + age, and gives Windows modules a PE code id', () => {
    const input = spec('x86_64', {
      os: 'windows',
      modules: [
        { name: 'C:\\app.exe', base: 0x140000000n, size: 0x2d000, timestamp: 0x45d35f6c, pdb: { guid: '5A9832E5287241C1838ED98914E9B7FF', age: 1, file: 'c:\\app.pdb' } },
        { name: 'C:\\old.dll', base: 0x150000000n, size: 0xb000, timestamp: 0x411096ca },
        { name: 'C:\\nil.dll', base: 0x160000000n, size: 0x1000, pdb: { guid: '0'.repeat(32), age: 10, file: 'nil.pdb' } },
        { name: 'C:\\odd.dll', base: 0x170000000n, size: 0x1000, codeView: Buffer.from('NB10\0\0\0\0\0\0\0\0') },
      ],
    })
    const dump = parseMinidump(writeMinidump(input))
    expect(dump.modules.map((m) => [m.debugId, m.codeId, m.debugFile])).toEqual([
      ['5A9832E5287241C1838ED98914E9B7FF1', '45D35F6C2d000', 'c:\\app.pdb'],
      [null, '411096CAb000', null],
      [null, '5F0000001000', 'nil.pdb'],
      [null, null, null],
    ])
  })

  it('keeps addresses above 2^53 exact', () => {
    const kernel = 0xffff_ffff_8100_0000n
    const input = spec('x86_64')
    const dump = parseMinidump(
      writeMinidump({
        ...input,
        modules: [...input.modules, { name: 'vmlinux', base: kernel, size: 0x100000, buildId: BUILD_ID }],
        crashingThread: { ...input.crashingThread, pc: kernel + 0x123n },
        exception: { address: 0xffff_ffff_ffff_fff1n },
      }),
    )
    expect(dump.exception!.context!.pc).toBe(0xffff_ffff_8100_0123n)
    expect(dump.exception!.address).toBe(0xffff_ffff_ffff_fff1n)
    expect(moduleAt(dump, 0xffff_ffff_8100_0123n)?.name).toBe('vmlinux')
  })

  it('takes the architecture from the context flags when there is no system info', () => {
    for (const arch of ['x86', 'x86_64', 'arm', 'arm64'] as const) {
      const buf = patched(writeMinidump(spec(arch)), (copy) => copy.writeUInt32LE(0, streamAt(copy, 7).entry)) // UnusedStream
      const dump = parseMinidump(buf)
      expect(dump.systemInfo).toBeNull()
      expect(dump.arch).toBe(arch)
      expect(dump.exception!.context!.arch).toBe(arch)
    }
  })

  it('reads a dump without an exception, threads, or memory', () => {
    const dump = parseMinidump(writeMinidump(spec('x86_64', { exception: null, threads: [] })))
    expect(dump.exception).toBeNull()
    expect(dump.threads).toHaveLength(1)
  })
})

describe('parseMinidump rejects malformed dumps with a MinidumpError', () => {
  const good = writeMinidump(spec('x86_64'))

  it('names what is not a minidump', () => {
    expectError(Buffer.alloc(0), /truncated: the header needs 32 bytes, the file has 0/)
    expectError(good.subarray(0, 31), /truncated: the header/)
    expectError(Buffer.from('PK\x03\x04'.padEnd(64, '\0')), /not a minidump \(signature 0x4034b50/)
    expectError(
      patched(good, (copy) => copy.writeUInt32LE(0x1234, 4)),
      /unknown format version 0x1234/,
    )
  })

  it('rejects a stream directory past the end or a huge stream count', () => {
    expectError(patched(good, (copy) => copy.writeUInt32LE(0xffffffff, 8)), /claims 4294967295 streams/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(good.length + 100, 12)), /streams at/)
  })

  it('rejects a stream whose offset or size runs past the end', () => {
    expectError(patched(good, (copy) => copy.writeUInt32LE(good.length, streamAt(copy, 4).entry + 8)), /truncated: stream 4/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(0xfffffff0, streamAt(copy, 4).entry + 8)), /truncated: stream 4/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(0xffffffff, streamAt(copy, 5).entry + 4)), /truncated: stream 5/)
  })

  it('rejects list counts larger than their streams', () => {
    expectError(patched(good, (copy) => copy.writeUInt32LE(4000, streamAt(copy, 4).rva)), /the module list claims 4000 modules, the stream holds 4/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(0xffffffff, streamAt(copy, 3).rva)), /the thread list claims 4294967295 threads, the stream holds 2/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(3, streamAt(copy, 5).rva)), /the memory list claims 3 ranges, the stream holds 2/)
  })

  it('rejects a list stream too short for its count', () => {
    expectError(patched(good, (copy) => copy.writeUInt32LE(2, streamAt(copy, 4).entry + 4)), /module list stream has 2 bytes/)
  })

  it('rejects module names and CodeView records out of bounds or malformed', () => {
    const modules = streamAt(good, 4).rva
    expectError(patched(good, (copy) => copy.writeUInt32LE(good.length - 2, modules + 4 + 20)), /module 0's name/)
    expectError(
      patched(good, (copy) => copy.writeUInt32LE(3, copy.readUInt32LE(modules + 4 + 20))),
      /module 0's name has an odd UTF-16 byte length/,
    )
    expectError(
      patched(good, (copy) => copy.writeUInt32LE(0x7ffffffe, copy.readUInt32LE(modules + 4 + 20))),
      /truncated: module 0's name/,
    )
    expectError(patched(good, (copy) => copy.writeUInt32LE(0x10000, modules + 4 + 76)), /module 0 \(\/usr\/bin\/app\)'s CodeView record/)
  })

  it('rejects thread stacks and contexts out of bounds, too small, or of another CPU', () => {
    const threads = streamAt(good, 3).rva
    expectError(patched(good, (copy) => copy.writeUInt32LE(good.length, threads + 4 + 36)), /thread 42's stack memory/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(good.length, threads + 4 + 44)), /thread 42's context/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(100, threads + 4 + 40)), /thread 42's context has 100 bytes, too small for an x86_64 context \(1232\)/)
    expectError(
      patched(good, (copy) => copy.writeUInt32LE(0x10007, copy.readUInt32LE(threads + 4 + 44) + 48)),
      /thread 42's context has flags 0x10007, not an x86_64 context's/,
    )
    const exception = streamAt(good, 6).rva
    expectError(patched(good, (copy) => copy.writeUInt32LE(700, exception + 160)), /the exception's context has 700 bytes/)
  })

  it('rejects short fixed-size streams', () => {
    expectError(patched(good, (copy) => copy.writeUInt32LE(100, streamAt(copy, 6).entry + 4)), /the exception stream has 100 bytes, it needs 168/)
    expectError(patched(good, (copy) => copy.writeUInt32LE(40, streamAt(copy, 7).entry + 4)), /the system info stream has 40 bytes, it needs 56/)
  })

  it('rejects memory ranges past the end, in both memory lists', () => {
    const memory = streamAt(good, 5).rva
    expectError(patched(good, (copy) => copy.writeUInt32LE(0xffffff00, memory + 4 + 8)), /memory range 0/)
    // A 64-bit memory list in place of the memory list: a u64 count, a u64 base offset, (start, size) pairs.
    const as64 = (count: bigint, base: bigint, size: bigint) =>
      patched(good, (copy) => {
        copy.writeUInt32LE(9, streamAt(copy, 5).entry)
        copy.writeBigUInt64LE(count, memory)
        copy.writeBigUInt64LE(base, memory + 8)
        copy.writeBigUInt64LE(0x1000n, memory + 16)
        copy.writeBigUInt64LE(size, memory + 24)
      })
    expect(parseMinidump(as64(1n, 0n, 64n)).memory.some((region) => region.base === 0x1000n && region.bytes.length === 64)).toBe(true)
    expectError(as64(0xffff_ffff_ffffn, 0n, 64n), /the 64-bit memory list claims 281474976710655 ranges, the stream holds 1/)
    expectError(as64(1n, 0xffff_ffff_ffff_ffffn, 64n), /64-bit memory range 0/)
    expectError(as64(1n, 0n, 0xffff_ffff_ffffn), /64-bit memory range 0/)
  })

  it('rejects a dump truncated at every stream boundary', () => {
    for (const arch of ['x86', 'x86_64', 'arm', 'arm64'] as const) {
      const dump = writeMinidump(spec(arch))
      const count = dump.readUInt32LE(8)
      const directory = dump.readUInt32LE(12)
      const cuts = new Set([directory, directory + count * 12 - 1])
      for (let i = 0; i < count; i++) {
        const rva = dump.readUInt32LE(directory + i * 12 + 8)
        const size = dump.readUInt32LE(directory + i * 12 + 4)
        for (const cut of [rva, rva + 1, rva + Math.floor(size / 2), rva + size - 1]) if (cut < dump.length) cuts.add(cut)
      }
      for (const cut of cuts) expectError(dump.subarray(0, cut))
    }
  })
})
