import { describe, expect, it, vi } from 'vitest'
import { PGLITE_CAPABILITIES, POSTGRES_CAPABILITIES } from '../db/capabilities.ts'
import { stepPace } from './step-pace.ts'

/** The pace with PostgreSQL's numbers (it cannot tell how busy it is). */
const postgresPace = () => stepPace({ backgroundPace: POSTGRES_CAPABILITIES.backgroundPace })
/** The pace with PGlite's numbers, and an engine as busy as `idleForMs` says. */
const pglitePace = (idleForMs: () => number) =>
  stepPace({ backgroundPace: PGLITE_CAPABILITIES.backgroundPace, busy: { idleForMs, sinceLastAnswerMs: () => 0 } })
const QUIET_MS = PGLITE_CAPABILITIES.backgroundPace.quietMs!

describe('the step pace with PostgreSQL\'s numbers: a pause after each step', () => {
  it('pauses half as long as the last step, so the job holds its project two thirds of the time at most', async () => {
    vi.useFakeTimers()
    try {
      let done = false
      const between = postgresPace().between(200, new AbortController().signal).then(() => (done = true))
      await vi.advanceTimersByTimeAsync(99)
      expect(done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await between
      expect(done).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('the step pace with PGlite\'s numbers: a deletion steps aside while requests are served', () => {
  it('goes on at once when nobody has used the database for a while', async () => {
    const pace = pglitePace(() => 10_000)
    // Without waiting for any timer (a busy database would have made it wait up to 1 s).
    const first = await Promise.race([
      pace.between(1000, new AbortController().signal).then(() => 'went on'),
      new Promise((resolve) => setImmediate(() => resolve('waited'))),
    ])
    expect(first).toBe('went on')
  })

  it('waits while a request is in flight and goes on once the database has been quiet', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
    try {
      let busy = true
      let quietSince = 0
      const idleForMs = () => (busy ? 0 : performance.now() - quietSince)
      const pace = pglitePace(idleForMs)
      let done = false
      // A long last step: the latest it would go on is 1.5 s off.
      const between = pace.between(250, new AbortController().signal).then(() => (done = true))
      await vi.advanceTimersByTimeAsync(1000)
      expect(done).toBe(false)
      busy = false
      quietSince = performance.now()
      await vi.advanceTimersByTimeAsync(QUIET_MS - 1)
      expect(done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await between
      expect(done).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it('goes on after a few times its last step when requests never stop, so the job still progresses', async () => {
    const pace = pglitePace(() => 0)
    await pace.between(5, new AbortController().signal)
  })

  it('stops when the job is told to', async () => {
    const pace = pglitePace(() => 0)
    const stop = new AbortController()
    const between = pace.between(250, stop.signal)
    stop.abort(new Error('stopping'))
    await expect(between).rejects.toThrow('stopping')
  })
})
