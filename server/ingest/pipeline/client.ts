import type { PipelineRequest } from './host.ts'

type Send = <T>(request: PipelineRequest) => Promise<T>

/** The HTTP thread's handle on the pipeline host of a thread (host.ts), over that thread's messages. */
export function pipelineClient(send: Send) {
  return {
    /** Asks the indexer for a pass soon: `appendedEvents` were just appended. */
    wake: (appendedEvents: number) => void send({ op: 'wake', appendedEvents }).catch(() => undefined),
    /** Resolves once every request appended so far is indexed, with when the last event was. */
    idle: () => send<number | null>({ op: 'idle' }),
    /** Requests not yet indexed and requests set aside, each counted up to `cap`. */
    backlog: (cap: number) => send<{ pending: number; failed: number }>({ op: 'backlog', cap }),
  }
}
