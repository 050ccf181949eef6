import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Failure, UnauthorizedError } from '../failures.ts'
import { fuzzSeed, seededRandom, type SeededRandom } from '../test-support/seeded-random.ts'
import { readMultipartUpload } from './multipart-upload.ts'

/**
 * The upload reader on random, truncated and malformed bodies, fed in random chunks, some
 * breaking off with an error as a dropped connection does: every call settles in time, with an
 * upload or a Failure, leaks no error and leaves nothing in the temporary directory.
 * FUZZ_SEED=<n> replays a run (FUZZ_SEED=random tries new cases).
 */

const SEED = fuzzSeed(0x5eed_0001)
const CASES = 1000
const SETTLE_MS = 10_000
const SCALARS = new Set(['apiKey', 'appVersion', 'minifiedUrl', 'overwrite'])
const OPTIONS = { scalarFields: SCALARS, maxFileBytes: 16 * 1024, maxTotalBytes: 64 * 1024, maxParts: 40 }

const leaked: unknown[] = []
const onLeak = (err: unknown) => leaked.push(err)
const spoolRoot = mkdtempSync(join(tmpdir(), 'errata-multipart-fuzz-'))
const previousTmpdir = process.env.TMPDIR

beforeAll(() => {
  process.env.TMPDIR = spoolRoot
  process.on('uncaughtException', onLeak)
  process.on('unhandledRejection', onLeak)
})
afterAll(() => {
  process.off('uncaughtException', onLeak)
  process.off('unhandledRejection', onLeak)
  if (previousTmpdir === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = previousTmpdir
  rmSync(spoolRoot, { recursive: true, force: true })
})

function name(random: SeededRandom): string {
  switch (random.int(0, 5)) {
    case 0:
      return random.pick([...SCALARS])
    case 1:
      return random.pick(['sourceMap', 'minifiedFile', 'bundle'])
    case 2:
      return `https://cdn.example.com/${'a'.repeat(random.int(0, 3000))}.js`
    case 3:
      return 'x'.repeat(random.int(0, 20_000))
    case 4:
      return random.pick(['', 'na"me', 'ünïcödé', 'a\\"b', 'with\r\nbreak'])
    default:
      return random.bytes(random.int(1, 40)).toString('latin1')
  }
}

function partHeaders(random: SeededRandom, boundary: string): string {
  const filename = random.chance(0.5) ? `; filename="${random.pick(['a.map', '', '/tmp/x', 'é.js'])}"` : ''
  const lines = [`Content-Disposition: ${random.chance(0.95) ? 'form-data' : random.pick(['attachment', 'inline', ''])}; name="${name(random)}"${filename}`]
  if (random.chance(0.2)) lines.push(`Content-Type: ${random.pick(['application/octet-stream', 'text/plain; charset=latin1', 'application/json', 'bogus'])}`)
  if (random.chance(0.05)) lines.push(`X-Huge: ${'h'.repeat(random.int(1000, 40_000))}`)
  if (random.chance(0.05)) lines.push('no colon in this header line')
  if (random.chance(0.03)) lines.push(`--${boundary}`)
  return `--${boundary}\r\n${lines.join('\r\n')}\r\n\r\n`
}

function content(random: SeededRandom, boundary: string): Buffer {
  switch (random.int(0, 4)) {
    case 0:
      return Buffer.from('0123456789abcdef'.repeat(2)) // an API key's shape
    case 1:
      return random.bytes(random.int(0, 40_000))
    case 2:
      return Buffer.from(`{"version":3,"sources":["a.js"],"mappings":"${'AAAA,'.repeat(random.int(0, 5000))}"}`)
    case 3:
      // The boundary, or most of it, inside the content.
      return Buffer.from(`before\r\n--${boundary.slice(0, random.int(0, boundary.length))}after`)
    default:
      return Buffer.alloc(0)
  }
}

/** A body and its content type: mostly multipart-shaped, then broken in a random way. */
function body(random: SeededRandom): { contentType: string; body: Buffer } {
  const boundary = random.pick(['b', 'errata-boundary', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'x'.repeat(70), 'with space'])
  const contentType = random.chance(0.9)
    ? `multipart/form-data; boundary=${boundary.includes(' ') ? `"${boundary}"` : boundary}`
    : random.pick(['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=other', 'text/plain', ''])
  const pieces: Buffer[] = []
  if (random.chance(0.1)) pieces.push(Buffer.from('preamble text\r\n'))
  const parts = random.chance(0.05) ? random.int(40, 200) : random.int(0, 8)
  for (let i = 0; i < parts; i++) {
    pieces.push(Buffer.from(partHeaders(random, boundary)), content(random, boundary), Buffer.from('\r\n'))
  }
  if (random.chance(0.85)) pieces.push(Buffer.from(`--${boundary}--${random.pick(['\r\n', '', '--', 'x'])}`))
  if (random.chance(0.15)) pieces.push(random.bytes(random.int(1, 5000))) // garbage after the boundary
  let whole: Buffer = Buffer.concat(pieces)
  if (random.chance(0.1)) whole = random.bytes(random.int(0, 20_000))
  // Cut short, anywhere.
  if (random.chance(0.3)) whole = whole.subarray(0, random.int(0, whole.length))
  // A byte changed here and there.
  if (random.chance(0.15)) {
    whole = Buffer.from(whole)
    for (let i = random.int(1, 10); i > 0 && whole.length > 0; i--) whole[random.int(0, whole.length - 1)] = random.int(0, 255)
  }
  return { contentType, body: whole }
}

/** The body in random chunks; sometimes the stream fails partway, as a dropped connection does. */
function source(random: SeededRandom, whole: Buffer): Readable {
  // Every choice made now: the stream may be read after its case has settled.
  const chunks: { data: Buffer; lateMs: number }[] = []
  for (let at = 0; at < whole.length; ) {
    const size = random.pick([1, random.int(1, 64), random.int(1, 4096), random.int(1, 65_536)])
    // Some chunks arrive later, as a network's do.
    chunks.push({ data: whole.subarray(at, at + size), lateMs: random.chance(0.05) ? random.int(1, 5) : 0 })
    at += size
  }
  const failAt = random.chance(0.1) ? random.int(0, chunks.length) : -1
  let next = 0
  return new Readable({
    read() {
      if (next === failAt) return void this.destroy(new Error('aborted'))
      const chunk = chunks[next++]
      if (chunk === undefined) this.push(null)
      else if (chunk.lateMs > 0) setTimeout(() => this.push(chunk.data), chunk.lateMs)
      else this.push(chunk.data)
    },
  })
}

function settleWithin<T>(promise: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown; timedOut?: true }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timedOut: true }), ms)
    promise.then(
      (value) => (clearTimeout(timer), resolve({ value })),
      (error: unknown) => (clearTimeout(timer), resolve({ error })),
    )
  })
}

it(`settles every call with an upload or a Failure (seed ${SEED})`, async () => {
  const random = seededRandom(SEED)
  const outcomes = new Map<string, number>()
  for (let n = 0; n < CASES; n++) {
    const { contentType, body: whole } = body(random)
    const verdict = random.int(0, 2)
    const delay = random.int(0, 3)
    const check = async () => {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
      if (verdict === 0) throw new UnauthorizedError('apiKey: no project has this API key')
      if (verdict === 1) throw new Error('the database is away')
    }
    const result = await settleWithin(
      readMultipartUpload(source(random, whole), contentType, { ...OPTIONS, authorizeBy: { field: 'apiKey', check } }),
      SETTLE_MS,
    )
    const where = `seed ${SEED}, case ${n} (${contentType}, ${whole.length} bytes)`
    expect(result.timedOut, `${where}: did not settle within ${SETTLE_MS} ms`).toBeUndefined()
    const { error } = result
    // The authorization's own errors come back as they are (a database away answers 503).
    const expected = error === undefined || error instanceof Failure || (error as Error).message === 'the database is away'
    expect(expected, `${where}: rejected with ${String(error)}`).toBe(true)
    const outcome = error === undefined ? 'upload' : error instanceof Failure ? `${error.kind}: ${error.messages[0]!.replace(/[^a-z :']/gi, '').slice(0, 50)}` : 'authorization error'
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
  }
  expect(leaked, `seed ${SEED}: errors leaked`).toEqual([])
  expect(readdirSync(spoolRoot), `seed ${SEED}: left in the temporary directory`).toEqual([])
  // The cases reach every way an upload ends.
  const kinds = [...outcomes.keys()].join('\n')
  expect(kinds).toContain('upload')
  expect(kinds).toContain('invalid: body: ends before its closing boundary')
  expect(kinds).toContain('too large')
  expect(kinds).toContain('unauthenticated')
})
