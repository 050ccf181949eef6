// Worker thread of index-symbol-file.ts: indexes one uploaded symbol file and posts the result.
import { parentPort, workerData } from 'node:worker_threads'
import { indexNow, type SymbolHints } from './index-symbol-file.ts'

const { kind, bytes, hints, maxBytes } = workerData as { kind: 'breakpad' | 'elf'; bytes: Uint8Array; hints: SymbolHints; maxBytes: number }
parentPort!.postMessage(await indexNow(kind, bytes, hints, maxBytes))
