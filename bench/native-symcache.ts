// Native symbols: how long a Breakpad .sym upload takes to become a SymCache, the memory it takes,
// and lookups per second on the SymCache. The .sym text is generated here (functions with line
// records, inline records, PUBLICs and STACK CFI, about 5 MB by default), so the numbers do not
// depend on fixtures. `runNativeSymCacheBench()` returns the results; run this file alone
// (`node --import tsx bench/native-symcache.ts [megabytes]`) to print them as JSON. For a true
// peak RSS, run it alone in a fresh process: the RSS figure is the process's high-water mark.
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { symCacheFromBreakpad } from '../server/symbolication/native/breakpad-sym.ts'
import { SymCache } from '../server/symbolication/native/symcache.ts'
import { seededRandom } from '../server/test-support/seeded-random.ts'

export interface NativeSymCacheBenchResult {
  symBytes: number
  functions: number
  lineRecords: number
  symCacheBytes: number
  /** Parsing the .sym text and writing the SymCache (target: under 2 s for ~5 MB). */
  buildMs: number
  /** The .sym text's throughput through the parser and builder. */
  buildMBPerSecond: number
  /** SymCache.fromBuffer (views over the buffer, string offsets checked). */
  loadMs: number
  /** Random addresses inside the module, each answered with function, file, line and inline frames (target: 1,000,000/s). */
  lookupsPerSecond: number
  /** The process's peak resident memory before the build (the generated text included) and after it, and its heap right after the build. */
  rssBeforeBuildMB: number
  peakRssMB: number
  heapAfterBuildMB: number
}

/** A Breakpad .sym text of about `megabytes` MB: functions of 20–80 line records, a few inlines, publics between functions, CFI for each function. */
export function syntheticSym(megabytes: number, seed = 1): { text: string; functions: number; lineRecords: number; end: number } {
  const random = seededRandom(seed)
  const parts: string[] = ['MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libsynthetic.so', 'INFO CODE_ID 67452301ab89efcd0123456789abcdef01234567']
  for (let f = 0; f < 800; f++) parts.push(`FILE ${f} /build/src/module_${f % 40}/file_${f}.cpp`)
  for (let o = 0; o < 400; o++) parts.push(`INLINE_ORIGIN ${o} namespace_${o % 17}::Inline${o}<int>::get() const`)
  let bytes = parts.reduce((sum, line) => sum + line.length + 1, 0)
  let address = 0x10000
  let functions = 0
  let lineRecords = 0
  const cfi: string[] = []
  while (bytes < megabytes * 1024 * 1024) {
    const lines = random.int(20, 80)
    const start = address
    const body: string[] = []
    let at = start
    const file = random.int(0, 799)
    for (let l = 0; l < lines; l++) {
      const size = random.int(2, 12)
      body.push(`${at.toString(16)} ${size.toString(16)} ${random.int(0, 3000)} ${random.chance(0.9) ? file : random.int(0, 799)}`)
      at += size
    }
    const size = at - start
    const head = [`FUNC ${random.chance(0.02) ? 'm ' : ''}${start.toString(16)} ${size.toString(16)} 0 namespace_${functions % 97}::Class${functions}::method_${functions}(int, std::string const&) const`]
    if (random.chance(0.3)) {
      const inlineStart = start + 8
      head.push(`INLINE 0 ${random.int(1, 3000)} ${file} ${random.int(0, 399)} ${inlineStart.toString(16)} 20`)
      head.push(`INLINE 1 ${random.int(1, 3000)} ${file} ${random.int(0, 399)} ${(inlineStart + 4).toString(16)} 8`)
    }
    for (const line of [...head, ...body]) {
      parts.push(line)
      bytes += line.length + 1
    }
    cfi.push(`STACK CFI INIT ${start.toString(16)} ${size.toString(16)} .cfa: $rsp 8 + .ra: .cfa -8 + ^`, `STACK CFI ${(start + 1).toString(16)} .cfa: $rsp 16 +`)
    lineRecords += lines
    functions++
    address = at + random.int(0, 16)
    if (random.chance(0.05)) {
      parts.push(`PUBLIC ${address.toString(16)} 0 public_${functions}`)
      address += random.int(16, 64)
    }
  }
  return { text: `${parts.join('\n')}\n${cfi.join('\n')}\n`, functions, lineRecords, end: address }
}

export async function runNativeSymCacheBench(megabytes = 5): Promise<NativeSymCacheBenchResult> {
  const { text, functions, lineRecords, end } = syntheticSym(megabytes)
  const sym = Buffer.from(text)
  const rssBeforeBuildMB = Math.round(process.memoryUsage().rss / 2 ** 20)
  const started = performance.now()
  const { symCache } = await symCacheFromBreakpad(sym)
  const buildMs = performance.now() - started
  const heapAfterBuildMB = process.memoryUsage().heapUsed / 2 ** 20

  const loadStarted = performance.now()
  const cache = SymCache.fromBuffer(symCache)
  const loadMs = performance.now() - loadStarted

  const random = seededRandom(2)
  const addresses = Float64Array.from({ length: 1 << 16 }, () => random.int(0x10000, end))
  let found = 0
  for (let i = 0; i < 100_000; i++) found += cache.lookup(addresses[i & 0xffff]!).length // warm-up
  const count = 2_000_000
  const lookupStarted = performance.now()
  for (let i = 0; i < count; i++) found += cache.lookup(addresses[i & 0xffff]!).length
  const lookupMs = performance.now() - lookupStarted
  if (found === 0) throw new Error('no lookup found anything')

  return {
    symBytes: sym.length,
    functions,
    lineRecords,
    symCacheBytes: symCache.length,
    buildMs: Math.round(buildMs),
    buildMBPerSecond: Math.round((sym.length / 2 ** 20 / (buildMs / 1000)) * 10) / 10,
    loadMs: Math.round(loadMs * 100) / 100,
    lookupsPerSecond: Math.round(count / (lookupMs / 1000)),
    rssBeforeBuildMB,
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    heapAfterBuildMB: Math.round(heapAfterBuildMB),
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await runNativeSymCacheBench(Number(process.argv[2] ?? 5)), null, 2))
}
