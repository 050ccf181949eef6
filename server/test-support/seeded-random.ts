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

/** FUZZ_SEED's seed alone when it is set, else `count` fixed seeds (the same on every run). */
export function fuzzSeeds(count: number): number[] {
  if (process.env.FUZZ_SEED) return [fuzzSeed(0)]
  return Array.from({ length: count }, (_, i) => 1 + i * 7919)
}

/** A string of `length` characters drawn from `alphabet`. */
export function randomString(random: SeededRandom, length: number, alphabet: string): string {
  let text = ''
  for (let i = 0; i < length; i++) text += alphabet[random.int(0, alphabet.length - 1)]
  return text
}

/** A number parsers tend to get wrong: 0, -1, huge, fractional, past safe integers. */
export function hostileNumber(random: SeededRandom): number {
  return random.pick([0, 1, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2, 1e308, 1.5, -(2 ** 31), 100_000_000, random.int(0, 999)])
}

/** `text` cut, with characters inserted or removed, a slice repeated, or numbers made hostile. */
export function mutate(random: SeededRandom, text: string): string {
  const at = random.int(0, text.length)
  switch (random.int(0, 4)) {
    case 0:
      return text.slice(0, at)
    case 1:
      return text.slice(0, at) + randomString(random, random.int(1, 8), '{}[]",:;0123456789AZaz+/\\\u0000\uffff') + text.slice(at)
    case 2:
      return text.slice(0, at) + text.slice(at + random.int(1, 32))
    case 3:
      return text.slice(0, at) + text.slice(at, at + 64).repeat(random.int(1, 50)) + text.slice(at)
    default:
      return text.replace(/\d+/g, (digits) => (random.chance(0.1) ? String(hostileNumber(random)) : digits))
  }
}

