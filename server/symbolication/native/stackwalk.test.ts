import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { framePointerStack, writeMinidump, writePointer, type MinidumpSpec, type WriterArch } from '../../test-support/minidump-writer.ts'
import { parseMinidump } from './minidump.ts'
import { walkStack, walkThreads, type ModuleSymbols, type StackFrame, type SymbolsFor } from './stackwalk.ts'

const noSymbols: SymbolsFor = () => null
const options = { maxFrames: 256 }

const APP_ID = 'b060ad20c6b47781552708aa192e7739fac7c84a'
const LIB_ID = 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a'

/** Symbols with hand-written STACK CFI records, by module name. */
function cfiSymbols(recordsByModule: Record<string, string[]>): SymbolsFor {
  return (module) => {
    const records = recordsByModule[module.name.split('/').pop()!]
    if (!records) return null
    const symbols: ModuleSymbols = {
      cfiAt(relative) {
        let current: { init: string; deltas: string[] } | null = null
        for (const record of records) {
          const fields = record.split(' ')
          if (fields[0] === 'INIT') {
            const start = parseInt(fields[1]!, 16)
            const size = parseInt(fields[2]!, 16)
            current = relative >= start && relative < start + size ? { init: record, deltas: [] } : null
            if (current) return withDeltas(current, records, records.indexOf(record))
          }
        }
        return null
      },
    }
    return symbols
  }
}

function withDeltas(found: { init: string; deltas: string[] }, records: string[], at: number) {
  for (const record of records.slice(at + 1)) {
    if (record.startsWith('INIT')) break
    found.deltas.push(record)
  }
  return found
}

const summary = (frames: StackFrame[]) =>
  frames.map((f) => ({ address: f.address, lookupAddress: f.lookupAddress, trust: f.trust, module: f.module?.name ?? null, moduleOffset: f.moduleOffset }))

function layout(arch: WriterArch) {
  const wide = arch === 'x86_64' || arch === 'arm64'
  const app = wide ? 0x5555_0000_0000n : 0x0800_0000n
  const lib = wide ? 0x7f00_1000_0000n : 0x4000_0000n
  const stackBase = wide ? 0x7ffd_0000_0000n : 0xbf00_0000n
  const modules = [
    { name: '/usr/bin/app', base: app, size: 0x10000, buildId: APP_ID },
    { name: '/usr/lib/libfoo.so', base: lib, size: 0x10000, buildId: LIB_ID },
  ]
  return { app, lib, stackBase, modules }
}

const ADJUSTED: Record<WriterArch, (a: bigint) => bigint> = {
  x86: (a) => a - 1n,
  x86_64: (a) => a - 1n,
  arm: (a) => (a & ~1n) - 2n,
  arm64: (a) => (a & ~3n) - 4n,
}

describe('walkStack by frame pointers', () => {
  it.each(['x86', 'x86_64', 'arm', 'arm64'] as const)('walks a %s frame-pointer chain; only callers are adjusted', (arch) => {
    const { app, lib, stackBase, modules } = layout(arch)
    const returns = [lib + 0x1236n, app + 0x2002n, app + 0x3004n]
    const { stack, sp, fp } = framePointerStack(arch, { base: stackBase, returnAddresses: returns })
    const dump = parseMinidump(writeMinidump({ arch, os: 'linux', modules, crashingThread: { id: 1, pc: lib + 0x101n, sp, fp, lr: lib + 0x1236n, stack } }))
    const frames = walkStack(dump, undefined, noSymbols, options)
    expect(summary(frames)).toEqual([
      { address: lib + 0x101n, lookupAddress: lib + 0x101n, trust: 'context', module: '/usr/lib/libfoo.so', moduleOffset: 0x101n },
      ...returns.map((address) => ({
        address,
        lookupAddress: ADJUSTED[arch](address),
        trust: 'frame_pointer',
        module: address >= lib ? '/usr/lib/libfoo.so' : '/usr/bin/app',
        moduleOffset: address - (address >= lib ? lib : app),
      })),
    ])
    expect(frames[1]!.lookupOffset).toBe(ADJUSTED[arch](returns[0]!) - lib)
    expect(frames[1]!.module).toEqual({ name: '/usr/lib/libfoo.so', debugId: '78E6C3C4C58290AE748762B6CCAF46F60', codeId: LIB_ID, base: lib })
  })

  it('adjusts arm return addresses by clearing the Thumb bit, then −2; and follows r7 in Thumb code', () => {
    const { app, stackBase, modules } = layout('arm')
    const { stack, sp, fp } = framePointerStack('arm', { base: stackBase, returnAddresses: [app + 0x2003n, app + 0x3000n] })
    const dump = parseMinidump(writeMinidump({ arch: 'arm', os: 'android', modules, crashingThread: { id: 1, pc: app + 0x101n, sp, fp, thumb: true, stack } }))
    const frames = walkStack(dump, undefined, noSymbols, options)
    expect(frames.map((f) => [f.address, f.lookupAddress])).toEqual([
      [app + 0x101n, app + 0x101n],
      [app + 0x2003n, app + 0x2000n],
      [app + 0x3000n, app + 0x2ffen],
    ])
  })

  it('strips arm64 pointer-authentication bits from saved return addresses', () => {
    const { app, stackBase, modules } = layout('arm64')
    const { stack, sp, fp } = framePointerStack('arm64', { base: stackBase, returnAddresses: [0x002b_0000_0000_0000n | (app + 0x2000n)] })
    const dump = parseMinidump(writeMinidump({ arch: 'arm64', os: 'ios', arm64Layout: 'microsoft', modules, crashingThread: { id: 1, pc: app + 0x100n, sp, fp, stack } }))
    expect(walkStack(dump, undefined, noSymbols, options).map((f) => f.address)).toEqual([app + 0x100n, app + 0x2000n])
  })

  it('walks the real Windows x86 dump as rust-minidump does', () => {
    const dump = parseMinidump(readFileSync(new URL('../../../test/fixtures/native/windows-x86-test.dmp', import.meta.url)))
    const frames = walkStack(dump, undefined, noSymbols, options)
    // rust-minidump's minidump-stackwalk snapshot (human-brief): the same four frames.
    expect(frames.map((f) => [f.address, f.trust, f.module?.name, f.lookupOffset])).toEqual([
      [0x40429en, 'context', 'c:\\test_app.exe', 0x429en],
      [0x404200n, 'frame_pointer', 'c:\\test_app.exe', 0x41ffn],
      [0x4053ecn, 'frame_pointer', 'c:\\test_app.exe', 0x53ebn],
      [0x7c816fd7n, 'frame_pointer', 'C:\\WINDOWS\\system32\\kernel32.dll', 0x16fd6n],
    ])
  })
})

describe('walkStack stops where the stack stops making sense', () => {
  it.each(['x86', 'x86_64', 'arm', 'arm64'] as const)('stops at a %s frame pointer that points to itself', (arch) => {
    const { app, stackBase, modules } = layout(arch)
    const width = arch === 'x86' || arch === 'arm' ? 4 : 8
    const bytes = Buffer.alloc(256)
    const record = stackBase + 64n
    writePointer(bytes, 64, record, width)
    writePointer(bytes, 64 + width, app + 0x2000n, width)
    const dump = parseMinidump(writeMinidump({ arch, os: 'linux', modules, crashingThread: { id: 1, pc: app + 0x100n, sp: stackBase, fp: record, stack: { base: stackBase, bytes } } }))
    const frames = walkStack(dump, undefined, noSymbols, options)
    expect(frames.length).toBeLessThanOrEqual(2)
    expect(frames[0]!.trust).toBe('context')
  })

  it('stops at maxFrames', () => {
    const { app, stackBase, modules } = layout('x86_64')
    const returns = Array.from({ length: 40 }, (_, i) => app + 0x1000n + BigInt(i * 16))
    const { stack, sp, fp } = framePointerStack('x86_64', { base: stackBase, returnAddresses: returns })
    const dump = parseMinidump(writeMinidump({ arch: 'x86_64', os: 'linux', modules, crashingThread: { id: 1, pc: app + 0x100n, sp, fp, stack } }))
    expect(walkStack(dump, undefined, noSymbols, { maxFrames: 5 })).toHaveLength(5)
    expect(walkStack(dump, undefined, noSymbols, { maxFrames: 1 })).toHaveLength(1)
    expect(walkStack(dump, undefined, noSymbols, { maxFrames: 0 })).toHaveLength(0)
    expect(walkStack(dump, undefined, noSymbols, options)).toHaveLength(41)
  })

  it('stops at a return address outside every module, and at a frame pointer leaving the stack', () => {
    const { app, stackBase, modules } = layout('x86_64')
    const outside = framePointerStack('x86_64', { base: stackBase, returnAddresses: [app + 0x2000n, 0x1234_5678n, app + 0x3000n] })
    const dump = parseMinidump(writeMinidump({ arch: 'x86_64', os: 'linux', modules, crashingThread: { id: 1, pc: app + 0x100n, ...outside } }))
    expect(walkStack(dump, undefined, noSymbols, options).map((f) => f.address)).toEqual([app + 0x100n, app + 0x2000n])

    const away = framePointerStack('x86_64', { base: stackBase, returnAddresses: [app + 0x2000n, app + 0x3000n] })
    writePointer(away.stack.bytes, Number(away.records[0]! - stackBase), 0x10n, 8)
    const dump2 = parseMinidump(writeMinidump({ arch: 'x86_64', os: 'linux', modules, crashingThread: { id: 1, pc: app + 0x100n, ...away } }))
    expect(walkStack(dump2, undefined, noSymbols, options)).toHaveLength(1)
  })

  it('keeps frame 0 when the pc is outside every module, and when the stack is missing', () => {
    const { stackBase, modules } = layout('arm64')
    const dump = parseMinidump(writeMinidump({ arch: 'arm64', os: 'linux', modules, crashingThread: { id: 1, pc: 0xdead_0000n, sp: stackBase, fp: 0 } }))
    expect(summary(walkStack(dump, undefined, noSymbols, options))).toEqual([
      { address: 0xdead_0000n, lookupAddress: 0xdead_0000n, trust: 'context', module: null, moduleOffset: null },
    ])
  })
})

describe('walkStack by STACK CFI', () => {
  it('walks x86_64 frames without frame pointers, keeps the callee-saved rbp through them, then follows it', () => {
    const { app, lib, stackBase, modules } = layout('x86_64')
    // Frame 0 in app's 0x1000 (sub rsp, 24 at 0x1004; rbx pushed), frame 1 in app's 0x2000
    // (only its return address on the stack), frame 2 in libfoo without CFI: rbp chain.
    const bytes = Buffer.alloc(0x200)
    const at = (offset: number, value: bigint) => writePointer(bytes, offset, value, 8)
    const sp = stackBase
    at(0x10, 0x1111n) // saved rbx, .cfa - 16
    at(0x18, app + 0x2010n) // return into frame 1, .cfa - 8
    // cfa of frame 0 = sp + 0x20; frame 1's .cfa = rsp + 8 → return address at 0x20
    at(0x20, lib + 0x3000n)
    // frame 2 (libfoo) keeps rbp = stackBase + 0x100: [saved rbp 0, return into app]
    at(0x100, 0n)
    at(0x108, app + 0x4000n)
    const dump = parseMinidump(
      writeMinidump({
        arch: 'x86_64',
        os: 'linux',
        modules,
        crashingThread: { id: 1, pc: app + 0x1010n, sp, fp: stackBase + 0x100n, registers: { rbx: 0x9999n, r12: 0x12n }, stack: { base: stackBase, bytes } },
      }),
    )
    const symbols = cfiSymbols({
      app: ['INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^', '1001 .cfa: $rsp 16 + $rbx: .cfa -16 + ^', '1004 .cfa: $rsp 32 +', '1050 .cfa: $rsp 8 +', 'INIT 2000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^'],
    })
    const frames = walkStack(dump, undefined, symbols, options)
    expect(summary(frames)).toEqual([
      { address: app + 0x1010n, lookupAddress: app + 0x1010n, trust: 'context', module: '/usr/bin/app', moduleOffset: 0x1010n },
      { address: app + 0x2010n, lookupAddress: app + 0x200fn, trust: 'cfi', module: '/usr/bin/app', moduleOffset: 0x2010n },
      { address: lib + 0x3000n, lookupAddress: lib + 0x2fffn, trust: 'cfi', module: '/usr/lib/libfoo.so', moduleOffset: 0x3000n },
      { address: app + 0x4000n, lookupAddress: app + 0x3fffn, trust: 'frame_pointer', module: '/usr/bin/app', moduleOffset: 0x4000n },
    ])
  })

  it('walks an arm64 leaf by `.ra: x30`, then a framed function by its CFI', () => {
    const { app, lib, stackBase, modules } = layout('arm64')
    const bytes = Buffer.alloc(0x200)
    const at = (offset: number, value: bigint) => writePointer(bytes, offset, value, 8)
    // Frame 1 (app 0x2000..) has stored [x29, x30] at sp+0x10 with x29 = sp+0x10 (fp = 0x10 above sp).
    at(0x10, stackBase + 0x100n) // caller's x29
    at(0x18, lib + 0x5004n) // return into libfoo
    at(0x100, 0n)
    at(0x108, app + 0x6000n)
    const dump = parseMinidump(
      writeMinidump({
        arch: 'arm64',
        os: 'android',
        modules,
        crashingThread: { id: 1, pc: app + 0x1008n, sp: stackBase, fp: stackBase + 0x10n, lr: app + 0x2024n, stack: { base: stackBase, bytes } },
      }),
    )
    const symbols = cfiSymbols({
      app: [
        // A leaf: nothing pushed, the return address stays in x30.
        'INIT 1000 40 .cfa: sp 0 + .ra: x30',
        // A framed function: stp x29, x30, [sp, #-32]!; mov x29, sp … here: cfa = x29 + 16 (sp+0x20).
        'INIT 2000 100 .cfa: sp 0 + .ra: x30',
        '2008 .cfa: x29 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^',
      ],
    })
    const frames = walkStack(dump, undefined, symbols, options)
    expect(summary(frames)).toEqual([
      { address: app + 0x1008n, lookupAddress: app + 0x1008n, trust: 'context', module: '/usr/bin/app', moduleOffset: 0x1008n },
      { address: app + 0x2024n, lookupAddress: app + 0x2020n, trust: 'cfi', module: '/usr/bin/app', moduleOffset: 0x2024n },
      { address: lib + 0x5004n, lookupAddress: lib + 0x5000n, trust: 'cfi', module: '/usr/lib/libfoo.so', moduleOffset: 0x5004n },
      { address: app + 0x6000n, lookupAddress: app + 0x5ffcn, trust: 'frame_pointer', module: '/usr/bin/app', moduleOffset: 0x6000n },
    ])
    // Without CFI the leaf's caller is skipped (every frame is taken for a framed one).
    expect(walkStack(dump, undefined, noSymbols, options).map((f) => f.address)).toEqual([app + 0x1008n, lib + 0x5004n, app + 0x6000n])
  })

  it('falls back to frame pointers when the CFI is malformed or cannot be evaluated', () => {
    const { app, stackBase, modules } = layout('x86_64')
    const { stack, sp, fp } = framePointerStack('x86_64', { base: stackBase, returnAddresses: [app + 0x2000n] })
    const dump = parseMinidump(writeMinidump({ arch: 'x86_64', os: 'linux', modules, crashingThread: { id: 1, pc: app + 0x1010n, sp, fp, stack } }))
    for (const init of [
      'INIT 1000 100 .cfa: $rsp 8 +',
      'INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^ ^ ^ ^',
      'INIT 1000 100 .cfa: $rsp 0 / .ra: 1',
      'INIT 1000 100 .cfa: $nope 8 + .ra: .cfa -8 + ^',
      'INIT 1000 100 .cfa: $rsp 99999999 + .ra: .cfa ^',
      'INIT 1000 100 .cfa: .cfa .ra: 4096',
      'INIT 1000 100 .cfa: $rsp 3 @ .ra: 4096',
      'INIT zz 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^',
      `INIT 1000 100 .cfa: ${'$rsp '.repeat(300)} .ra: 4096`,
      'INIT 1000 100 $rsp 8 +',
      'INIT 1000 100 .cfa: $rsp 8 + .ra: .undef',
    ]) {
      const frames = walkStack(dump, undefined, cfiSymbols({ app: [init] }), options)
      expect(frames.map((f) => f.trust)).toEqual(['context', 'frame_pointer'])
    }
  })
})

describe('walkThreads', () => {
  it('walks every thread, the crashing one first, from the exception context', () => {
    const { app, stackBase, modules } = layout('arm64')
    const a = framePointerStack('arm64', { base: stackBase, returnAddresses: [app + 0x2000n] })
    const b = framePointerStack('arm64', { base: stackBase + 0x10000n, returnAddresses: [app + 0x3000n, app + 0x4000n] })
    const spec: MinidumpSpec = {
      arch: 'arm64',
      os: 'android',
      modules,
      crashingThread: { id: 7, pc: app + 0x100n, sp: a.sp, fp: a.fp, stack: a.stack },
      threads: [{ id: 8, pc: app + 0x200n, sp: b.sp, fp: b.fp, stack: b.stack }],
    }
    const dump = parseMinidump(writeMinidump(spec))
    const threads = walkThreads(dump, noSymbols, options)
    expect(threads.map((t) => [t.threadId, t.crashed, t.frames.map((f) => f.address)])).toEqual([
      [7, true, [app + 0x100n, app + 0x2000n]],
      [8, false, [app + 0x200n, app + 0x3000n, app + 0x4000n]],
    ])
    expect(walkStack(dump, 8, noSymbols, options)).toEqual(threads[1]!.frames)
    expect(walkStack(dump, 999, noSymbols, options)).toEqual([])
  })

  it('takes the first thread as the crashing one without an exception', () => {
    const { app, stackBase, modules } = layout('x86')
    const a = framePointerStack('x86', { base: stackBase, returnAddresses: [app + 0x2000n] })
    const dump = parseMinidump(writeMinidump({ arch: 'x86', os: 'windows', modules, exception: null, crashingThread: { id: 3, pc: app + 0x10n, sp: a.sp, fp: a.fp, stack: a.stack } }))
    expect(walkThreads(dump, noSymbols, options).map((t) => [t.threadId, t.crashed, t.frames.length])).toEqual([[3, true, 2]])
  })
})

describe('walkThreads limits', () => {
  it('walks at most maxThreads threads, the crashing one first', () => {
    const { app, stackBase, modules } = layout('x86_64')
    const a = framePointerStack('x86_64', { base: stackBase, returnAddresses: [app + 0x2000n] })
    const threads = Array.from({ length: 5 }, (_, i) => ({ id: 10 + i, pc: app + 0x10n, sp: a.sp, fp: a.fp, stack: a.stack }))
    const dump = parseMinidump(writeMinidump({ arch: 'x86_64', os: 'linux', modules, crashingThread: { id: 9, pc: app + 0x10n, sp: a.sp, fp: a.fp, stack: a.stack }, threads }))
    expect(walkThreads(dump, noSymbols, { maxFrames: 8, maxThreads: 2 }).map((t) => t.threadId)).toEqual([9, 10])
  })
})
