import { describe, expect, it } from 'vitest'
import { frame } from '../../test/fixtures.ts'
import {
  defaultCodeFrameIndex,
  formatFrameLocation,
  frameMethod,
  hasSymbolicatedFrames,
  nativeAddress,
  previewItems,
  rawNativeDetails,
  toCodeLines,
  toFrameItems,
  toRawFrames,
  type FrameItem,
} from './to-frames.ts'

describe('toFrameItems', () => {
  it('keeps in-project frames and groups each run of library frames', () => {
    const frames = [
      frame({ method: 'lib0' }),
      frame({ method: 'app1', in_project: true }),
      frame({ method: 'lib2' }),
      frame({ method: 'lib3' }),
      frame({ method: 'app4', in_project: true }),
      frame({ method: 'lib5' }),
    ]
    const items = toFrameItems(frames)
    expect(items.map((item) => (item.kind === 'frame' ? item.frame.method : item.frames.map((f) => f.frame.method)))).toEqual([
      ['lib0'],
      'app1',
      ['lib2', 'lib3'],
      'app4',
      ['lib5'],
    ])
    // Original positions survive grouping.
    const group = items[2]
    expect(group?.kind === 'library' && group.frames.map((f) => f.index)).toEqual([2, 3])
  })

  it('keeps a native crash\'s program-counter frame in view, even in a system library', () => {
    const native = (isPc: boolean) => ({
      type: 'cocoa',
      module: '/usr/lib/libobjc.A.dylib',
      frame_address: '0x1a2b',
      load_address: '0x1000',
      symbol_address: null,
      relative_address: '0xa2b',
      is_pc: isPc,
      is_lr: false,
      code_identifier: null,
      macho_uuid: null,
      macho_vm_address: null,
    })
    const items = toFrameItems([
      frame({ method: 'objc_msgSend', native: native(true) }),
      frame({ method: 'CFRunLoopRun', native: native(false) }),
      frame({ method: '-[ShopViewController checkout]', in_project: true }),
    ])
    expect(items.map((item) => (item.kind === 'frame' ? item.frame.method : item.frames.map((f) => f.frame.method)))).toEqual([
      'objc_msgSend',
      ['CFRunLoopRun'],
      '-[ShopViewController checkout]',
    ])
  })

  it('shows every frame when none is in-project', () => {
    const items = toFrameItems([frame(), frame()])
    expect(items.every((item) => item.kind === 'frame')).toBe(true)
  })

  it('folds a recursion into one item of its cycle, whether its frames are in-project or not', () => {
    const recurse = frame({ method: 'recurse', file: 'src/tree.ts', line: 3, column: 7, in_project: true })
    const items = toFrameItems([frame({ method: 'lib0' }), recurse, recurse, recurse, recurse, frame({ method: 'app5', in_project: true })])
    expect(items.map((item) => item.kind)).toEqual(['library', 'repeat', 'frame'])
    const run = items[1]
    expect(run?.kind === 'repeat' && { cycle: run.cycle.map((f) => f.index), repeats: run.repeats, frames: run.frames.map((f) => f.index) }).toEqual({
      cycle: [1],
      repeats: 4,
      frames: [1, 2, 3, 4],
    })
    // No frame in project: every frame visible, the recursion still folded.
    const library = frame({ method: 'Array.forEach' })
    expect(toFrameItems([library, library, library, frame({ method: 'end' })]).map((item) => item.kind)).toEqual(['repeat', 'frame'])
  })

  it('handles an empty trace', () => {
    expect(toFrameItems([])).toEqual([])
  })
})

describe('frame formatting', () => {
  it('formats locations with whatever parts exist', () => {
    expect(formatFrameLocation({ file: 'src/a.ts', line: 3, column: 9 })).toBe('src/a.ts:3:9')
    expect(formatFrameLocation({ file: 'src/a.ts', line: 3, column: null })).toBe('src/a.ts:3')
    expect(formatFrameLocation({ file: null, line: null, column: null })).toBe('(unknown file)')
  })

  it('locates a native frame by its module and the address inside it', () => {
    const native = {
      type: 'cocoa', module: '/private/var/containers/Bundle/Application/6F4E/Shop.app/Shop', frame_address: '0x102f4a2bc',
      load_address: '0x102f40000', symbol_address: null, relative_address: '0xa2bc', is_pc: false, is_lr: true,
      code_identifier: null, macho_uuid: 'D0A41830-4FD2-3B02-A23B-0741AD4C7F52', macho_vm_address: '0x100000000',
    }
    expect(formatFrameLocation({ file: null, line: null, column: null, native })).toBe('Shop + 0xa2bc')
    expect(formatFrameLocation({ file: null, line: null, column: null, native: { ...native, load_address: null, relative_address: null } })).toBe('Shop')
    expect(formatFrameLocation({ file: null, line: null, column: null, native: { ...native, module: null, relative_address: null } })).toBe('0x102f4a2bc')
    // A source file and line beside the addresses (symbolicated) are shown as for any frame.
    expect(formatFrameLocation({ file: 'Checkout.swift', line: 12, column: null, native })).toBe('Checkout.swift:12')
    expect(frameMethod({ method: null, native })).toBe('(unknown function)')
  })

  it('names anonymous frames', () => {
    expect(frameMethod({ method: null })).toBe('(anonymous function)')
    expect(frameMethod({ method: '  ' })).toBe('(anonymous function)')
    expect(frameMethod({ method: 'run' })).toBe('run')
  })

  it('orders code lines numerically and marks the failing one', () => {
    const lines = toCodeLines({ '10': 'b', '9': 'a', '11': 'c', x: 'junk' }, 10)
    expect(lines).toEqual([
      { number: 9, text: 'a', failing: false },
      { number: 10, text: 'b', failing: true },
      { number: 11, text: 'c', failing: false },
    ])
  })

  it('opens the code of the first in-project frame that has code', () => {
    const code = { '1': 'x' }
    expect(defaultCodeFrameIndex([frame({ code }), frame({ in_project: true }), frame({ in_project: true, code })])).toBe(2)
    expect(defaultCodeFrameIndex([frame(), frame({ code })])).toBe(1)
    expect(defaultCodeFrameIndex([frame()])).toBe(-1)
  })
})

describe('previewItems', () => {
  const shape = (items: FrameItem[]) => items.map((item) => (item.kind === 'frame' ? item.index : `${item.kind}:${item.frames.length}`))

  it('shows up to the limit of frames, cutting a library group where it falls, and counts what is left out', () => {
    const frames = [frame({ in_project: true }), ...Array.from({ length: 10 }, (_, i) => frame({ method: `lib${i}` })), frame({ in_project: true })]
    const { items, hidden } = previewItems(toFrameItems(frames), 4)
    expect(shape(items)).toEqual([0, 'library:3'])
    expect(hidden).toBe(8)
    expect(previewItems(toFrameItems(frames), 50)).toEqual({ items: toFrameItems(frames), hidden: 0 })
  })

  it('counts a folded recursion as its one cycle, and shows it whole', () => {
    const a = frame({ method: 'a', line: 1 })
    const b = frame({ method: 'b', line: 2 })
    const frames = [...Array.from({ length: 100 }, () => [a, b]).flat(), frame({ method: 'after', line: 3 }), frame({ method: 'last', line: 4 })]
    const { items, hidden } = previewItems(toFrameItems(frames), 3)
    expect(shape(items)).toEqual(['repeat:200', 200])
    expect(hidden).toBe(1)
  })
})

describe('native frames as they came', () => {
  const native = {
    type: 'c', module: '/data/app/lib/arm64/libcrash.so', frame_address: '0x7843a01698', load_address: '0x7843a00000', symbol_address: null,
    relative_address: '0x1698', is_pc: true, is_lr: false, code_identifier: 'c4c3e678', macho_uuid: null, macho_vm_address: null,
  }
  const from = { method: 'crash_here', file: '/data/app/lib/arm64/libcrash.so', line: 5784 }
  const symbolicated = [
    frame({ method: 'helper', file: 'crashlib.c', line: 12, column: null, native: { ...native, symbolicated_from: from, inlined: true } }),
    frame({ method: 'crash_here', file: 'crashlib.c', line: 20, column: null, code: { '20': 'x' }, native: { ...native, symbolicated_from: from } }),
    frame({ method: 'main', file: 'app.c', line: 3, column: 1 }),
  ]

  it('turns resolved frames back into what came, without the frames inlined code added', () => {
    const raw = toRawFrames(symbolicated)
    expect(raw.map((f) => [f.method, formatFrameLocation(f), f.code])).toEqual([
      ['crash_here', 'libcrash.so + 0x1698', null],
      ['main', 'app.c:3:1', null],
    ])
    expect(hasSymbolicatedFrames([{ stacktrace: symbolicated }])).toBe(true)
    expect(hasSymbolicatedFrames([{ stacktrace: [frame({ native })] }])).toBe(false)
  })

  it('names the module and address, and how a minidump frame was found', () => {
    expect(nativeAddress(native)).toBe('libcrash.so + 0x1698')
    expect(rawNativeDetails(native)).toBe('frame 0x7843a01698 · loaded at 0x7843a00000')
    expect(rawNativeDetails({ ...native, load_address: null, lookup_address: '0x1694', trust: 'cfi' })).toBe('frame 0x7843a01698 · looked up at 0x1694 · found with unwind info')
  })
})
