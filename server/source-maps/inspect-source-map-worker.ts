// Worker thread of inspect-source-map.ts: reads one uploaded map and posts what it found.
import { parentPort, workerData } from 'node:worker_threads'
import { inspectGzippedMap } from './inspect-source-map.ts'

const { gzipped } = workerData as { gzipped: Uint8Array }
parentPort!.postMessage(await inspectGzippedMap(gzipped))
