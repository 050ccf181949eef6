import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import { gunzip } from 'node:zlib'
import { ValidationError } from '../failures.ts'
import { parseSourceMap, SourceMapError, stripPrefix } from '../symbolication/parse-source-map.ts'
import { splitSourcesContent, type SplitSourceMap } from '../symbolication/split-sources-content.ts'

const gunzipAsync = promisify(gunzip)

export interface SourceMapSummary {
  /** The map's own `file` field. */
  mapFile: string | null
  sourcesCount: number
  /** The map with its sourcesContent split off, to store in its place; null to store it as sent. */
  split: SplitSourceMap | null
}

/** What the worker answers: the summary, or why the map cannot be used. */
export type InspectReply = { summary: SourceMapSummary } | { refusal: string } | { failure: string }

/** Maps larger than this are parsed on a worker thread: parsing 50 MB of JSON holds a thread for about half a second. */
const WORKER_ABOVE_BYTES = 1024 * 1024

/** Reads a gzip'd map and says what it is, or why it cannot be used (the worker runs this too). */
export async function inspectGzippedMap(gzipped: Uint8Array): Promise<InspectReply> {
  try {
    const text = (await gunzipAsync(gzipped)).toString('utf8')
    const map = parseSourceMap(text)
    // Valid JSON (parseSourceMap read it): read again as it is, for what is stored.
    const split = text.includes('"sourcesContent"') ? await splitSourcesContent(JSON.parse(stripPrefix(text)) as Record<string, unknown>) : null
    return { summary: { mapFile: typeof map.file === 'string' ? map.file : null, sourcesCount: map.sources.length, split } }
  } catch (err) {
    return err instanceof SourceMapError ? { refusal: err.message } : { failure: (err as Error).message }
  }
}

// One map at a time on the worker: each holds a parsed copy of its map while it is read.
let queue: Promise<unknown> = Promise.resolve()

function inspectOnWorker(gzipped: Buffer): Promise<InspectReply> {
  const url = new URL('./inspect-source-map-worker.ts', import.meta.url)
  // TypeScript on the worker too: it registers tsx's loader first, as server/db/pglite-thread.ts does.
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`
  const run = () =>
    new Promise<InspectReply>((resolve, reject) => {
      const worker = new Worker(bootstrap, { eval: true, workerData: { gzipped } })
      worker.once('message', (reply: InspectReply) => {
        resolve(reply)
        void worker.terminate()
      })
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new Error(`the source map worker stopped (code ${code})`)))
    })
  const result = queue.then(run, run)
  queue = result.catch(() => undefined)
  return result
}

/**
 * Reads the uploaded map once to refuse what symbolication could not use: not JSON, not
 * version 3, fields of the wrong type, an index map whose sections cannot be used (400 naming
 * sourceMap and the problem), and splits its sourcesContent off for storage. Large maps are
 * read on a worker thread, off the HTTP thread.
 */
export async function inspectSourceMap(gzipped: Buffer, size: number, workerAboveBytes = WORKER_ABOVE_BYTES): Promise<SourceMapSummary> {
  const reply = size > workerAboveBytes ? await inspectOnWorker(gzipped) : await inspectGzippedMap(gzipped)
  if ('refusal' in reply) throw new ValidationError(`sourceMap: ${reply.refusal}`)
  if ('failure' in reply) throw new Error(`reading the source map failed: ${reply.failure}`)
  const { split } = reply.summary
  // From the worker, buffers arrive as plain Uint8Arrays.
  const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return {
    ...reply.summary,
    split: split && { map: asBuffer(split.map), sources: split.sources.map((source) => ({ ...source, gzipped: asBuffer(source.gzipped) })) },
  }
}
