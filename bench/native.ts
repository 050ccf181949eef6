// Native crashes (`BENCH_PHASES=native`): SymCache lookups per second, the index build of a 5 MB
// Breakpad .sym and of a ~20 MB ELF shared object (time and the process's peak memory), and the
// processing of a 1 MB minidump (parse, walk every thread, look every frame up), warm.
// Each measurement runs in a fresh child process (`node --import tsx bench/native.ts <part>`), so
// its peak RSS is its own; each is repeated and reported as min/median/max.
//
// The .sym text and the minidump are generated (bench/native-symcache.ts, the test minidump
// writer). The ELF object is BENCH_NATIVE_ELF, else the largest libpython with DWARF line
// tables under ~/.pyenv (about 23–31 MB); without one, that part is skipped and says so.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { readSoFile } from '../server/symbolication/native/so-file.ts'
import { parseMinidump } from '../server/symbolication/native/minidump.ts'
import { walkThreads } from '../server/symbolication/native/stackwalk.ts'
import { createSymCacheBuilder, SymCache } from '../server/symbolication/native/symcache.ts'
import { framePointerStack, writeMinidump, type WriterModule, type WriterThread } from '../server/test-support/minidump-writer.ts'
import { runNativeSymCacheBench, syntheticSym } from './native-symcache.ts'
import { symCacheFromBreakpad } from '../server/symbolication/native/breakpad-sym.ts'

const RUNS = Number(process.env.BENCH_NATIVE_RUNS ?? 3)

interface Stats {
  min: number
  median: number
  max: number
}
const stats = (values: number[]): Stats => {
  const sorted = [...values].sort((a, b) => a - b)
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted[sorted.length - 1]! }
}

/** The ELF object the build is measured on, or null. */
export function benchElf(): string | null {
  if (process.env.BENCH_NATIVE_ELF) return process.env.BENCH_NATIVE_ELF
  const root = join(homedir(), '.pyenv/versions')
  if (!existsSync(root)) return null
  const candidates = readdirSync(root).flatMap((version) => {
    const lib = join(root, version, 'lib')
    return existsSync(lib) ? readdirSync(lib).filter((f) => /^libpython3.*\.so\.1\.0$/.test(f)).map((f) => join(lib, f)) : []
  })
  // Closest to 20 MB.
  return candidates.sort((a, b) => Math.abs(statSync(a).size - 20e6) - Math.abs(statSync(b).size - 20e6))[0] ?? null
}

/** One ELF index build: time, the SymCache's size, functions and line records, peak RSS. */
function elfPart(path: string) {
  const bytes = readFileSync(path)
  const started = performance.now()
  const builder = createSymCacheBuilder()
  const info = readSoFile(bytes, builder, { maxBytes: 1 << 30 })
  const symcache = builder.finish(info)
  const buildMs = performance.now() - started
  const cache = SymCache.fromBuffer(symcache)
  return { bytes: bytes.length, buildMs: Math.round(buildMs), functions: cache.counts.functions, lines: cache.counts.lines, peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024) }
}

/** A ~1 MB x86_64 dump: 200 modules, 24 threads of 250 frames each through a frame-pointer chain. */
function benchDump(): { dump: Buffer; modules: WriterModule[] } {
  const modules: WriterModule[] = Array.from({ length: 200 }, (_, i) => ({
    name: `/usr/lib/libmodule${i}.so`,
    base: 0x7f0000000000n + BigInt(i) * 0x1000000n,
    size: 0x800000,
    buildId: (i + 1).toString(16).padStart(40, '0'),
  }))
  const thread = (id: number): WriterThread => {
    const returns = Array.from({ length: 249 }, (_, f) => BigInt(modules[(id + f) % 200]!.base as bigint) + 0x10000n + BigInt(f * 64))
    const stack = framePointerStack('x86_64', { base: 0x7ffd00000000n + BigInt(id) * 0x100000n, returnAddresses: returns, frameSize: 160 })
    return { id, pc: BigInt(modules[id]!.base as bigint) + 0x20000n, sp: stack.sp, fp: stack.fp, stack: stack.stack }
  }
  const [crashing, ...others] = Array.from({ length: 24 }, (_, i) => thread(i + 1))
  return { dump: writeMinidump({ arch: 'x86_64', os: 'linux', modules, crashingThread: crashing!, threads: others }), modules }
}

/** Processing one dump, warm: parse, walk every thread, look each frame up in its module's SymCache. */
async function minidumpPart() {
  const { dump } = benchDump()
  // One SymCache (a 1 MB .sym's) serves every module: what matters is a lookup per frame.
  const { symCache } = await symCacheFromBreakpad(Buffer.from(syntheticSym(1).text))
  const cache = SymCache.fromBuffer(symCache)
  let frames = 0
  const once = () => {
    const parsed = parseMinidump(dump)
    const threads = walkThreads(parsed, () => null, { maxFrames: 256 })
    for (const thread of threads) {
      for (const frame of thread.frames) {
        if (frame.lookupOffset !== null) cache.lookup(Number(frame.lookupOffset))
        frames++
      }
    }
  }
  for (let i = 0; i < 5; i++) once()
  const times: number[] = []
  for (let i = 0; i < 20; i++) {
    frames = 0
    const started = performance.now()
    once()
    times.push(performance.now() - started)
  }
  return { dumpBytes: dump.length, frames, ms: stats(times.map((t) => Math.round(t * 10) / 10)) }
}

function child(part: string, arg = ''): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), part, arg], { encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(out) as Record<string, unknown>
}

export interface NativeBenchResult {
  sym: { bytes: number; buildMs: Stats; peakRssMB: Stats; lookupsPerSecond: Stats; target: { buildMs: number; lookupsPerSecond: number } }
  elf: { path: string; bytes: number; functions: number; lines: number; buildMs: Stats; peakRssMB: Stats; target: { buildMs: number } } | { skipped: string }
  minidump: { dumpBytes: number; frames: number; ms: Stats; target: { ms: number } }
}

export async function nativeBench(log: (line: string) => void): Promise<NativeBenchResult> {
  const symRuns = Array.from({ length: RUNS }, () => child('sym'))
  const sym = {
    bytes: symRuns[0]!.symBytes as number,
    buildMs: stats(symRuns.map((r) => r.buildMs as number)),
    peakRssMB: stats(symRuns.map((r) => r.peakRssMB as number)),
    lookupsPerSecond: stats(symRuns.map((r) => r.lookupsPerSecond as number)),
    target: { buildMs: 2000, lookupsPerSecond: 1_000_000 },
  }
  log(`5 MB .sym: build ${JSON.stringify(sym.buildMs)} ms, peak RSS ${JSON.stringify(sym.peakRssMB)} MB, lookups/s ${JSON.stringify(sym.lookupsPerSecond)}`)
  const path = benchElf()
  let elf: NativeBenchResult['elf']
  if (path) {
    const runs = Array.from({ length: RUNS }, () => child('elf', path))
    elf = {
      path,
      bytes: runs[0]!.bytes as number,
      functions: runs[0]!.functions as number,
      lines: runs[0]!.lines as number,
      buildMs: stats(runs.map((r) => r.buildMs as number)),
      peakRssMB: stats(runs.map((r) => r.peakRssMB as number)),
      target: { buildMs: 2000 },
    }
    log(`${(elf.bytes / 1e6).toFixed(1)} MB ELF (${path}): build ${JSON.stringify(elf.buildMs)} ms, peak RSS ${JSON.stringify(elf.peakRssMB)} MB`)
  } else {
    elf = { skipped: 'no ELF object with DWARF found: set BENCH_NATIVE_ELF' }
    log(`ELF build: ${elf.skipped}`)
  }
  const dump = child('minidump')
  const minidump = { ...(dump as { dumpBytes: number; frames: number; ms: Stats }), target: { ms: 100 } }
  log(`1 MB minidump, warm (parse, walk ${minidump.frames} frames, look each up): ${JSON.stringify(minidump.ms)} ms`)
  return { sym, elf, minidump }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [part, arg] = process.argv.slice(2)
  if (part === 'sym') console.log(JSON.stringify(await runNativeSymCacheBench(5)))
  else if (part === 'elf') console.log(JSON.stringify(elfPart(arg!)))
  else if (part === 'minidump') console.log(JSON.stringify(await minidumpPart()))
  else console.log(JSON.stringify(await nativeBench(console.log), null, 2))
}
