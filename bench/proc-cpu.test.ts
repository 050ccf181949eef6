import { describe, expect, it } from 'vitest'
import { EXITED_THREADS, parseStat, processDelta, threadDelta, type ProcessThreads, type ProcessTimes } from './proc-cpu.ts'

// A real line of /proc/<pid>/stat (Linux 6.1), with a name that holds a space and parentheses.
const line = (comm: string, utime: number, stime: number, cutime = 0, cstime = 0) =>
  `4242 (${comm}) S 4200 4242 4200 0 -1 4194560 5863 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 11 0 31235 1234567 9876 ` +
  '18446744073709551615 1 1 0 0 0 0 0 16781312 134235650 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n'

describe('parseStat', () => {
  it('reads the name up to the last parenthesis and the times after it', () => {
    expect(parseStat(line('node', 812, 95))).toMatchObject({ comm: 'node', state: 'S', ppid: 4200, utime: 812, stime: 95, startTime: 31235 })
    expect(parseStat(line('we (ird) name)', 1, 2, 3, 4))).toMatchObject({ comm: 'we (ird) name)', utime: 1, stime: 2, cutime: 3, cstime: 4 })
  })

  it('refuses a line that is not a stat line', () => {
    expect(() => parseStat('no parentheses here')).toThrow()
  })
})

const proc = (pid: number, ppid: number, ticks: number, childTicks = 0): ProcessTimes => ({ pid, ppid, comm: 'postgres', title: '', ticks, childTicks })

describe('processDelta', () => {
  it('counts new processes from zero and exited children through their parent, once', () => {
    const before = new Map([
      [1, proc(1, 0, 100, 50)],
      [2, proc(2, 1, 30)], // exits during the interval having spent 30 + 12 ticks
    ])
    const after = new Map([
      [1, proc(1, 0, 101, 50 + 42)],
      [3, proc(3, 1, 7)], // new
    ])
    const groups = processDelta(before, after, () => 'postgres')
    expect(groups.get('postgres')).toBe(1 + 7)
    expect(groups.get('postgres (exited children)')).toBe(12)
  })
})

describe('threadDelta', () => {
  const threads = (total: number, list: Array<[number, number]>): ProcessThreads => ({
    pid: 10,
    comm: 'node',
    ticks: total,
    threads: new Map(list.map(([tid, ticks]) => [tid, { tid, comm: 'node', ticks, startTime: 0 }])),
  })

  it('groups threads and reports what exited threads took', () => {
    const before = threads(100, [[10, 60], [11, 30], [12, 10]])
    const after = threads(180, [[10, 100], [11, 50]]) // 12 exited having spent 10 + 10 more
    const groups = threadDelta(before, after, (t) => (t.tid === 10 ? 'main' : 'other'))
    expect(groups.get('main')).toEqual({ ticks: 40, threads: 1, busiestTicks: 40 })
    expect(groups.get('other')).toEqual({ ticks: 20, threads: 1, busiestTicks: 20 })
    expect(groups.get(EXITED_THREADS)?.ticks).toBe(20)
  })
})
