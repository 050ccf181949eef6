// An uploaded symbol file turned into its SymCache, once, at upload: a Breakpad .sym file
// (breakpad-sym.ts) or an ELF object, debug-only extract or gzip of either (so-file.ts), each fed
// into the one SymCache builder (symcache.ts). Large files are read on a worker thread, off the
// HTTP thread, one at a time. What cannot be read is a 400 naming the field and the problem.
import { Worker } from 'node:worker_threads'
import type { ModuleIdentity } from '../symbolication/native/native-symbols.ts'
import { BreakpadSymError, parseBreakpadSym } from '../symbolication/native/breakpad-sym.ts'
import { NativeUploadError, readSoFile } from '../symbolication/native/so-file.ts'
import { createSymCacheBuilder, SymCache } from '../symbolication/native/symcache.ts'
import { ValidationError } from '../failures.ts'

/** What the upload tool said beside the file: the field it came in, and the module's name when the file names none. */
export interface SymbolHints {
  field: string
  moduleName?: string
  debugId?: string
  os?: string
  cpu?: string
}

export interface IndexedSymbols {
  identity: ModuleIdentity
  hasSymbols: boolean
  hasLineInfo: boolean
  hasInlineInfo: boolean
  hasCfi: boolean
  symcache: Buffer
}

/** Files larger than this are indexed on a worker thread (a 5 MB .sym takes about 0.2 s). */
const WORKER_ABOVE_BYTES = 4 * 1024 * 1024

type Reply = { indexed: Omit<IndexedSymbols, 'symcache'> & { symcache: Uint8Array } } | { refusal: string } | { failure: string }

/** Reads one file into its SymCache (the worker runs this too). */
export async function indexNow(kind: 'breakpad' | 'elf', bytes: Uint8Array, hints: SymbolHints, maxBytes: number): Promise<Reply> {
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const builder = createSymCacheBuilder()
  try {
    let identity: ModuleIdentity
    if (kind === 'breakpad') {
      const module = await parseBreakpadSym(input, builder)
      identity = { debugId: module.debugId, codeId: module.codeId, os: module.os, arch: module.arch, moduleName: module.moduleName }
    } else {
      const info = readSoFile(input, builder, { maxBytes, ...(hints.moduleName && { moduleName: hints.moduleName }) })
      identity = { debugId: info.debugId, codeId: info.codeId, os: info.os, arch: info.arch, moduleName: info.moduleName }
    }
    const symcache = builder.finish(identity)
    const cache = SymCache.fromBuffer(symcache)
    const hasSymbols = cache.counts.functions + cache.counts.publics > 0
    return { indexed: { identity, hasSymbols, hasLineInfo: cache.hasLineInfo, hasInlineInfo: cache.hasInlineInfo, hasCfi: cache.hasCfi, symcache } }
  } catch (err) {
    if (err instanceof BreakpadSymError) return { refusal: `${hints.field}: ${err.message}` }
    if (err instanceof NativeUploadError) return { refusal: err.message }
    return { failure: (err as Error).message }
  }
}

let queue: Promise<unknown> = Promise.resolve()

function indexOnWorker(kind: 'breakpad' | 'elf', bytes: Buffer, hints: SymbolHints, maxBytes: number): Promise<Reply> {
  const url = new URL('./index-symbol-file-worker.ts', import.meta.url)
  // TypeScript on the worker too: it registers tsx's loader first, as server/db/pglite-thread.ts does.
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`
  const run = () =>
    new Promise<Reply>((resolve, reject) => {
      const worker = new Worker(bootstrap, { eval: true, workerData: { kind, bytes, hints, maxBytes } })
      worker.once('message', (reply: Reply) => {
        resolve(reply)
        void worker.terminate()
      })
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new Error(`the symbol file worker stopped (code ${code})`)))
    })
  const result = queue.then(run, run)
  queue = result.catch(() => undefined)
  return result
}

/** The upload's SymCache and what it holds; 400 naming the field for a file that cannot be used. */
export async function indexSymbolFile(kind: 'breakpad' | 'elf', bytes: Buffer, hints: SymbolHints, maxBytes: number): Promise<IndexedSymbols> {
  const reply = bytes.length > WORKER_ABOVE_BYTES ? await indexOnWorker(kind, bytes, hints, maxBytes) : await indexNow(kind, bytes, hints, maxBytes)
  if ('refusal' in reply) throw new ValidationError(reply.refusal)
  if ('failure' in reply) throw new Error(`indexing the symbol file failed: ${reply.failure}`)
  const { symcache } = reply.indexed
  // From the worker, buffers arrive as plain Uint8Arrays.
  return { ...reply.indexed, symcache: Buffer.from(symcache.buffer, symcache.byteOffset, symcache.byteLength) }
}
