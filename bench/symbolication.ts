// Source-map symbolication benchmarks (issue 15): frames mapped per second with warm maps on a
// ~1 MB map, the first lookup on a cold ~5 MB map, and memory with 200 maps cached. The maps are
// generated here (bundles of synthetic sources with sourcesContent), so the numbers do not
// depend on fixtures. `runSymbolicationBench()` returns the results; run this file alone
// (`node --import tsx bench/symbolication.ts`) to print them as JSON.
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { gunzipSync, gzipSync } from 'node:zlib'
import { encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec'
import pino from 'pino'
import { openPglite } from '../server/db/client.ts'
import { newApiKey, newId } from '../server/db/ids.ts'
import { migrate } from '../server/db/migrate.ts'
import { organizations, projects, sourceMapFiles, sourceMaps } from '../server/db/schema.ts'
import type { StoredEventPayload } from '../server/events/event-payload.ts'
import type { NormalizedEvent } from '../server/ingest/payload/event-row.ts'
import type { SymbolicationEvent } from '../server/symbolication/frame-targets.ts'
import { createJavaScriptSymbolicator } from '../server/symbolication/javascript.ts'
import { LoadedSourceMap } from '../server/symbolication/loaded-source-map.ts'
import { parseSourceMap } from '../server/symbolication/parse-source-map.ts'
import { splitSourcesContent } from '../server/symbolication/split-sources-content.ts'

export interface SymbolicationBenchResult {
  warm: {
    mapBytes: number
    /** Position, display path, in_project and code context of one frame, on a map already decoded. */
    framesPerSecond: number
    /** The same per second of this process's CPU time (what other load on the machine leaves alone). */
    framesPerCpuSecond: number
    /** The same through symbolicate(): batches of 500 events × 20 frames, the database queried per batch (PGlite). */
    symbolicateFramesPerSecond: number
    /** symbolicate() per second of the process's CPU time (the PGlite worker's included). */
    symbolicateFramesPerCpuSecond: number
    target: number
  }
  cold: {
    mapBytes: number
    /** Stored as uploads are (the map without sourcesContent, each source apart), gzip'd. */
    gzipBytes: number
    /**
     * As stored: gunzip + JSON.parse + parseSourceMap of the map without sourcesContent, the first
     * lookup (which decodes every mapping), and gunzip of the frame's one source for its code
     * context; median of 5, wall and CPU time.
     */
    firstLookupMs: number
    firstLookupCpuMs: number
    /** The same from the map stored whole (sourcesContent inline), as uploads were stored before. */
    wholeMapFirstLookupMs: number
    wholeMapFirstLookupCpuMs: number
    /** Through symbolicate() with a fresh cache: the upload and the one source read from the database too, median of 5. */
    symbolicateFirstLookupMs: number
    symbolicateFirstLookupCpuMs: number
    target: number
  }
  memory: {
    maps: number
    mapBytes: number
    /** Heap and RSS growth with every map parsed, decoded and kept, after garbage collection. */
    heapBytes: number
    rssBytes: number
    /** What the LRU counts for them (LoadedSourceMap.bytes), which ERRATA_SOURCE_MAP_CACHE_BYTES bounds. */
    estimatedBytes: number
    peakRssBytes: number
  }
}

// ---------------------------------------------------------------------------------------------
// Synthetic bundles

const WORDS = ['total', 'items', 'price', 'cart', 'user', 'order', 'amount', 'discount', 'tax', 'shipping', 'currency', 'quantity']

export interface GeneratedMap {
  text: string
  /** Generated [line, column] positions that have mappings (1-based line, 1-based column as V8 gives them). */
  positions: [number, number][]
}

/**
 * A map of a minified bundle of `sources` files (each `linesPerSource` lines, embedded in
 * sourcesContent), with generated lines of about 2,000 characters and a segment every ~8
 * characters, most with a name: the shape of terser or esbuild output. Grows until ~`bytes`.
 */
export function generateMap(bytes: number, seed = 1): GeneratedMap {
  let random = seed
  const next = (n: number) => {
    random = (random * 1103515245 + 12345) & 0x7fffffff
    return random % n
  }
  const sourcesContent: string[] = []
  const sources: string[] = []
  const names = WORDS.flatMap((word) => [word, `${word}Of`, `compute${word[0]!.toUpperCase()}${word.slice(1)}`])
  const lines: SourceMapSegment[][] = []
  const positions: [number, number][] = []
  let size = 0
  let line: SourceMapSegment[] = []
  let column = 0
  while (size < bytes) {
    const source = sources.length
    const linesPerSource = 200
    const text: string[] = []
    for (let l = 0; l < linesPerSource; l++) {
      text.push(`  const ${WORDS[next(WORDS.length)]}${l} = ${names[next(names.length)]}(${WORDS[next(WORDS.length)]}, ${next(1000)}) // ${seed}-${source}-${l}`)
    }
    sources.push(`webpack://shop/./src/module-${seed}-${source}.js`)
    sourcesContent.push(text.join('\n'))
    size += text.join('\n').length + 40
    for (let l = 0; l < linesPerSource; l++) {
      for (let token = 0; token < 4; token++) {
        const segment: SourceMapSegment = next(3) === 0 ? [column, source, l, token * 8] : [column, source, l, token * 8, next(names.length)]
        line.push(segment)
        positions.push([lines.length + 1, column + 1])
        column += 4 + next(9)
        size += 7
        if (column > 2000) {
          lines.push(line)
          line = []
          column = 0
        }
      }
    }
  }
  lines.push(line)
  const text = JSON.stringify({ version: 3, file: `bundle-${seed}.js`, sources, sourcesContent, names, mappings: encode(lines) })
  return { text, positions }
}

// ---------------------------------------------------------------------------------------------
// Helpers

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Forces a full garbage collection (V8's gc exposed at run time), so heap numbers are live data. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

function load(text: string, key = 'bench'): LoadedSourceMap {
  return new LoadedSourceMap({ key, parsed: parseSourceMap(text), textBytes: text.length, projectRoot: null, minified: null, sourceFiles: new Map() })
}

/** What symbolicate() does for one mapped frame, minus building the frame object. */
function mapOne(map: LoadedSourceMap, line: number, column: number): number {
  const position = map.position(line, column)
  if (!position) return 0
  const file = map.displayPath(position.sourceIndex)
  const code = map.codeContext(position.sourceIndex, position.line)
  return (map.inProject(position.sourceIndex) ? 1 : 0) + (code ? 1 : 0) + (file ? 1 : 0)
}

function browserEvent(url: string, frames: [number, number][]): NormalizedEvent {
  const payload = {
    app_version: '1.0.0',
    app: { version: '1.0.0' },
    device: {},
    notifier: { name: 'Bugsnag JavaScript' },
    exceptions: [
      {
        class: 'TypeError',
        message: 'x is undefined',
        type: 'browserjs',
        stacktrace: frames.map(([line, column]) => ({ file: url, line, column, method: 'e', in_project: true, code: null })),
      },
    ],
  } as unknown as StoredEventPayload
  return { payload } as NormalizedEvent
}

// ---------------------------------------------------------------------------------------------
// The three measurements

function warmFramesPerSecond(generated: GeneratedMap): { wall: number; cpu: number } {
  const map = load(generated.text)
  const { positions } = generated
  let checksum = 0
  // Warm-up: decodes the mappings and splits the sources into lines.
  for (const [line, column] of positions) checksum += mapOne(map, line, column)
  const frames = 1_000_000
  const started = performance.now()
  const cpuStarted = cpuMs()
  for (let i = 0; i < frames; i++) {
    const [line, column] = positions[(i * 7919) % positions.length]!
    checksum += mapOne(map, line, column)
  }
  const seconds = (performance.now() - started) / 1000
  const cpuSeconds = (cpuMs() - cpuStarted) / 1000
  if (checksum === 0) throw new Error('no frame mapped')
  return { wall: Math.round(frames / seconds), cpu: Math.round(frames / cpuSeconds) }
}

interface ColdLookup {
  gzipBytes: number
  ms: number
  cpuMs: number
}

/**
 * The first lookup on a cold map as uploads are stored now (the map without sourcesContent, each
 * source gzip'd apart): gunzip and parse the map, find the frame's position (which decodes every
 * mapping), then gunzip only that frame's source for its code context. `whole` times the same
 * from the map stored whole (how uploads were stored before), in the same run. Medians of 5,
 * wall and CPU time.
 */
async function coldFirstLookup(generated: GeneratedMap): Promise<{ split: ColdLookup; whole: ColdLookup }> {
  const [line, column] = generated.positions[Math.floor(generated.positions.length / 2)]!
  const gzipped = gzipSync(generated.text)
  const split = (await splitSourcesContent(JSON.parse(generated.text) as Record<string, unknown>))!
  const sources = new Map(split.sources.map((source) => [source.index, source]))
  const time = (lookup: () => void, gzipBytes: number): ColdLookup => {
    const walls: number[] = []
    const cpus: number[] = []
    for (let run = 0; run < 5; run++) {
      collectGarbage()
      const started = performance.now()
      const cpuStarted = cpuMs()
      lookup()
      walls.push(performance.now() - started)
      cpus.push(cpuMs() - cpuStarted)
    }
    return { gzipBytes, ms: Math.round(median(walls) * 10) / 10, cpuMs: Math.round(median(cpus) * 10) / 10 }
  }
  const whole = time(() => {
    if (mapOne(load(gunzipSync(gzipped).toString('utf8')), line, column) < 3) throw new Error('no frame mapped with code')
  }, gzipped.length)
  const splitLookup = time(
    () => {
      const text = gunzipSync(split.map).toString('utf8')
      const map = new LoadedSourceMap({
        key: 'bench',
        parsed: parseSourceMap(text),
        textBytes: text.length,
        projectRoot: null,
        minified: null,
        sourceFiles: new Map(),
        storedSources: new Map(split.sources.map((source) => [source.index, source.size])),
      })
      const position = map.position(line, column)
      if (!position) throw new Error('no frame mapped')
      map.setStoredSource(position.sourceIndex, gunzipSync(sources.get(position.sourceIndex)!.gzipped).toString('utf8'))
      if (mapOne(map, line, column) < 3) throw new Error('no frame mapped with code')
    },
    split.map.length + split.sources.reduce((sum, source) => sum + source.gzipped.length, 0),
  )
  return { split: splitLookup, whole }
}

function memoryWithMaps(count: number, bytes: number): SymbolicationBenchResult['memory'] {
  collectGarbage()
  const heapBefore = process.memoryUsage().heapUsed
  const rssBefore = process.memoryUsage().rss
  let peakRss = rssBefore
  const kept: LoadedSourceMap[] = []
  let mapBytes = 0
  for (let i = 0; i < count; i++) {
    const generated = generateMap(bytes, 1000 + i)
    mapBytes += generated.text.length
    const map = load(generated.text, `map-${i}`)
    const [line, column] = generated.positions[0]!
    mapOne(map, line, column)
    kept.push(map)
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
  }
  collectGarbage()
  const usage = process.memoryUsage()
  peakRss = Math.max(peakRss, usage.rss)
  return {
    maps: kept.length,
    mapBytes: Math.round(mapBytes / kept.length),
    heapBytes: usage.heapUsed - heapBefore,
    rssBytes: usage.rss - rssBefore,
    estimatedBytes: kept.reduce((sum, map) => sum + map.bytes, 0),
    peakRssBytes: peakRss,
  }
}

/** symbolicate() on PGlite: warm throughput, and the first lookup with an empty cache. */
async function throughSymbolicate(
  warmMap: GeneratedMap,
  coldMap: GeneratedMap,
): Promise<{ framesPerSecond: number; framesPerCpuSecond: number; firstLookupMs: number; firstLookupCpuMs: number }> {
  const database = await openPglite()
  try {
    await migrate(database)
    const db = database.db
    const organizationId = newId()
    const projectId = newId()
    await db.insert(organizations).values({ id: organizationId, name: 'Bench', slug: `bench-${organizationId}` })
    await db.insert(projects).values({ id: projectId, organizationId, name: 'Bench', slug: 'bench', type: 'browser', apiKey: newApiKey() })
    // Stored as uploads are: the map without sourcesContent, each source apart.
    const upload = async (url: string, text: string) => {
      const id = newId()
      const split = (await splitSourcesContent(JSON.parse(text) as Record<string, unknown>))!
      const stored = split.map.length + split.sources.reduce((sum, source) => sum + source.gzipped.length, 0)
      await db.insert(sourceMaps).values({ id, projectId, kind: 'js', minifiedUrl: url, appVersion: '1.0.0', sizeBytes: text.length, storedBytes: stored, uploadedAt: new Date(0) })
      await db.insert(sourceMapFiles).values([
        { sourceMapId: id, role: 'map', sizeBytes: text.length, content: split.map },
        ...split.sources.map((source) => ({ sourceMapId: id, role: 'source_content' as const, name: String(source.index), sizeBytes: source.size, content: source.gzipped })),
      ])
    }
    await upload('https://cdn.example.com/warm.js', warmMap.text)
    await upload('https://cdn.example.com/cold.js', coldMap.text)
    const logger = pino({ level: 'silent' })

    const warm = createJavaScriptSymbolicator({ database, logger, cacheBytes: 2 * 1024 ** 3 })
    const batch = (url: string, map: GeneratedMap, offset: number): SymbolicationEvent[] =>
      Array.from({ length: 500 }, (_, e) => ({
        id: newId(),
        projectId,
        receivedAt: new Date(),
        event: browserEvent(url, Array.from({ length: 20 }, (_, f) => map.positions[(offset + e * 20 + f) * 7919 % map.positions.length]!)),
      }))
    await warm.symbolicate(batch('https://cdn.example.com/warm.js', warmMap, 0))
    // Each batch is made just before it is symbolicated and dropped after, as in the pipeline;
    // only symbolicate() is timed.
    let frames = 0
    let elapsed = 0
    let cpuElapsed = 0
    for (let round = 1; round <= 40; round++) {
      const events = batch('https://cdn.example.com/warm.js', warmMap, round * 10_000)
      const started = performance.now()
      const cpuStarted = cpuMs()
      await warm.symbolicate(events)
      elapsed += performance.now() - started
      cpuElapsed += cpuMs() - cpuStarted
      frames += 10_000
    }
    const framesPerSecond = Math.round(frames / (elapsed / 1000))
    const framesPerCpuSecond = Math.round(frames / (cpuElapsed / 1000))

    const times: number[] = []
    const cpuTimes: number[] = []
    for (let run = 0; run < 5; run++) {
      const cold = createJavaScriptSymbolicator({ database, logger })
      const position = coldMap.positions[Math.floor(coldMap.positions.length / 2) + run]!
      collectGarbage()
      const begun = performance.now()
      const cpuBegun = cpuMs()
      const event = browserEvent('https://cdn.example.com/cold.js', [position])
      await cold.symbolicate([{ id: newId(), projectId, receivedAt: new Date(), event }])
      times.push(performance.now() - begun)
      cpuTimes.push(cpuMs() - cpuBegun)
      if (!event.payload.exceptions[0]!.stacktrace[0]!.code) throw new Error('the cold lookup found no code context')
    }
    return {
      framesPerSecond,
      framesPerCpuSecond,
      firstLookupMs: Math.round(median(times) * 10) / 10,
      firstLookupCpuMs: Math.round(median(cpuTimes) * 10) / 10,
    }
  } finally {
    await database.close()
  }
}

export async function runSymbolicationBench(options: { cachedMaps?: number } = {}): Promise<SymbolicationBenchResult> {
  const warmMap = generateMap(1024 * 1024, 1)
  const coldMap = generateMap(5 * 1024 * 1024, 2)
  const warm = warmFramesPerSecond(warmMap)
  const cold = await coldFirstLookup(coldMap)
  const viaSymbolicate = await throughSymbolicate(warmMap, coldMap)
  const memory = memoryWithMaps(options.cachedMaps ?? 200, 1024 * 1024)
  return {
    warm: {
      mapBytes: warmMap.text.length,
      framesPerSecond: warm.wall,
      framesPerCpuSecond: warm.cpu,
      symbolicateFramesPerSecond: viaSymbolicate.framesPerSecond,
      symbolicateFramesPerCpuSecond: viaSymbolicate.framesPerCpuSecond,
      target: 500_000,
    },
    cold: {
      mapBytes: coldMap.text.length,
      gzipBytes: cold.split.gzipBytes,
      firstLookupMs: cold.split.ms,
      firstLookupCpuMs: cold.split.cpuMs,
      wholeMapFirstLookupMs: cold.whole.ms,
      wholeMapFirstLookupCpuMs: cold.whole.cpuMs,
      symbolicateFirstLookupMs: viaSymbolicate.firstLookupMs,
      symbolicateFirstLookupCpuMs: viaSymbolicate.firstLookupCpuMs,
      target: 150,
    },
    memory,
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runSymbolicationBench().then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (err: unknown) => {
      console.error(err)
      process.exit(1)
    },
  )
}
