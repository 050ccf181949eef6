import type { IndexerOptions, IngestIndexer } from '../index/indexer.ts'
import type { PipelineRequest } from './host.ts'

type Send = <T>(request: PipelineRequest) => Promise<T>

/** The HTTP thread's handle on the pipeline host of a thread (host.ts), over that thread's messages. */
export function pipelineClient(send: Send) {
  let nextIndexerId = 1
  return {
    startIndexer(options: IndexerOptions): IngestIndexer {
      const indexerId = nextIndexerId++
      const started = send({ op: 'indexer.start', indexerId, options })
      const call = <T>(op: 'indexer.idle' | 'indexer.close') => started.then(() => send<T>({ op, indexerId }))
      return {
        wake: (appendedEvents) => void started.then(() => send({ op: 'indexer.wake', indexerId, appendedEvents })).catch(() => undefined),
        idle: () => call<number | null>('indexer.idle'),
        close: () => call<void>('indexer.close'),
      }
    },
    /** Journaled requests not yet indexed, counted up to `cap`. */
    journalPending: (cap: number) => send<number>({ op: 'journal.pending', cap }),
  }
}
