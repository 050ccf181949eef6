import { describe, expect, it } from 'vitest'
import { frame } from '../../test/fixtures.ts'
import { findRepeats } from './find-repeats.ts'

/** One frame per letter: the same letter is the same place in the code. */
const trace = (letters: string) => [...letters].map((letter) => frame({ file: `src/${letter}.ts`, method: letter, line: 10, column: 3 }))

describe('findRepeats', () => {
  it('folds one frame repeated', () => {
    expect(findRepeats(trace('XAAAAAY'))).toEqual([{ start: 1, cycle: 1, repeats: 5 }])
  })

  it('folds a cycle of several frames repeated, leaving a partial last cycle outside', () => {
    expect(findRepeats(trace('ABCABCABCAB'))).toEqual([{ start: 0, cycle: 3, repeats: 3 }])
    expect(findRepeats(trace('XABABABABY'))).toEqual([{ start: 1, cycle: 2, repeats: 4 }])
  })

  it('finds cycles of up to maxCycle frames, and no longer', () => {
    const cycle = 'ABCDEFGHIJ'
    expect(findRepeats(trace(cycle.repeat(3)))).toEqual([{ start: 0, cycle: 10, repeats: 3 }])
    expect(findRepeats(trace(`${cycle}K`.repeat(3)))).toEqual([])
    expect(findRepeats(trace(`${cycle}K`.repeat(3)), { maxCycle: 11 })).toEqual([{ start: 0, cycle: 11, repeats: 3 }])
  })

  it('needs minRepeats repetitions', () => {
    expect(findRepeats(trace('AAB'))).toEqual([])
    expect(findRepeats(trace('ABAB'))).toEqual([])
    expect(findRepeats(trace('AAB'), { minRepeats: 2 })).toEqual([{ start: 0, cycle: 1, repeats: 2 }])
  })

  it('prefers the shortest cycle covering as many frames, and finds several runs', () => {
    expect(findRepeats(trace('AAAAAA'))).toEqual([{ start: 0, cycle: 1, repeats: 6 }])
    expect(findRepeats(trace('AAAXBXBXBC'))).toEqual([
      { start: 0, cycle: 1, repeats: 3 },
      { start: 3, cycle: 2, repeats: 3 },
    ])
  })

  it('compares file, method, line and column: a different line is another frame', () => {
    const frames = [0, 1, 2, 3].map((i) => frame({ file: 'src/walk.ts', method: 'walk', line: 10, column: 3 + (i === 2 ? 1 : 0) }))
    expect(findRepeats(frames)).toEqual([])
    const sameLine = [0, 1, 2].map(() => frame({ file: 'src/walk.ts', method: 'walk', line: 10, column: 3, in_project: true }))
    expect(findRepeats(sameLine)).toEqual([{ start: 0, cycle: 1, repeats: 3 }])
    const otherFile = [...sameLine.slice(0, 2), frame({ file: 'src/other.ts', method: 'walk', line: 10, column: 3 })]
    expect(findRepeats(otherFile)).toEqual([])
  })

  it('handles an empty or short trace', () => {
    expect(findRepeats([])).toEqual([])
    expect(findRepeats(trace('A'))).toEqual([])
  })
})
