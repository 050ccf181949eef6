/**
 * Pseudo-random numbers from a seed (mulberry32), so a fuzz test's failing case comes back with
 * its seed: FUZZ_SEED=<seed> reruns it.
 */
export interface SeededRandom {
  readonly seed: number
  /** A float in [0, 1). */
  next(): number
  /** An integer in [min, max]. */
  int(min: number, max: number): number
  /** true with probability p. */
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  bytes(length: number): Buffer
}

/**
 * The seed in FUZZ_SEED (`random` for a fresh one, to look further), else `fallback`: a run
 * without it tries the same cases every time, so it cannot fail by chance.
 */
export function fuzzSeed(fallback: number): number {
  const given = process.env.FUZZ_SEED
  if (given === 'random') return Math.floor(Math.random() * 2 ** 32)
  return given ? Number(given) >>> 0 : fallback
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    seed,
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[int(0, items.length - 1)]!,
    bytes: (length) => {
      const out = Buffer.allocUnsafe(length)
      for (let i = 0; i < length; i++) out[i] = int(0, 255)
      return out
    },
  }
}
