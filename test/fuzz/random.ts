/**
 * A seeded pseudo-random generator (mulberry32) for the fuzz tests: a failing case names its
 * seed, and the same seed makes the same inputs again.
 */
export class Random {
  private state: number

  constructor(readonly seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, max). */
  int(max: number): number {
    return Math.floor(this.next() * max)
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }

  /** A string of `length` characters drawn from `alphabet`. */
  string(length: number, alphabet: string): string {
    let text = ''
    for (let i = 0; i < length; i++) text += alphabet[this.int(alphabet.length)]
    return text
  }

  /** A number that parsers tend to get wrong: 0, -1, huge, fractional, past safe integers. */
  hostileNumber(): number {
    return this.pick([0, 1, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2, 1e308, 1.5, -(2 ** 31), 100_000_000, this.int(1000)])
  }

  /** Cuts, flips or repeats part of `text`. */
  mutate(text: string): string {
    const at = this.int(text.length + 1)
    switch (this.int(5)) {
      case 0:
        return text.slice(0, at)
      case 1:
        return text.slice(0, at) + this.string(1 + this.int(8), '{}[]",:;0123456789AZaz+/\\\u0000\uffff') + text.slice(at)
      case 2:
        return text.slice(0, at) + text.slice(at + 1 + this.int(32))
      case 3:
        return text.slice(0, at) + text.slice(at, at + 64).repeat(1 + this.int(50)) + text.slice(at)
      default:
        return text.replace(/\d+/g, (digits) => (this.chance(0.1) ? String(this.hostileNumber()) : digits))
    }
  }
}

/** The seeds a fuzz test runs: FUZZ_SEED=n runs that one, else a fixed list (the same on every run). */
export function fuzzSeeds(count: number): number[] {
  const one = process.env.FUZZ_SEED
  if (one) return [Number(one)]
  return Array.from({ length: count }, (_, i) => 1 + i * 7919)
}
