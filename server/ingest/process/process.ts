// The process stage: accepted requests in, events ready for the index stage out. Runs on the
// pipeline's thread (never the HTTP thread), after the request is durable in the accepted-event
// log: normalize, then each ProcessStage in order (source-map and native symbolication and discard
// rules plug in here), then grouping, which must see what the stages changed.
import type { AcceptedRequest } from '../payload/accepted-request.ts'
import type { IndexableEvent, PreparedEvent, SessionCount } from '../payload/event-row.ts'
import { notifyPayloadSchema, sessionsPayloadSchema } from '../payload/payload-schema.ts'
import { storedPayloadJson, type CodeLines } from '../../events/stored-frames.ts'
import type { AttemptGuard } from './attempts.ts'
import { computeGrouping } from './grouping.ts'
import { crashedSessionOf, prepareEvents } from './normalize.ts'
import { sessionCountsOf } from './sessions.ts'

/** One normalized event as the process stages see it. */
interface StageEvent {
  /** Its id, project and received time, and its normalized row data and payload (changed in place by stages). */
  readonly event: PreparedEvent
  /** Set by a stage that changed the exceptions or frames: the event is grouped again. */
  changed: boolean
  /** Set by a stage that drops the event (discard rules): it is not indexed. */
  dropped: boolean
}

/** A step between normalizing and grouping. */
export interface ProcessStage {
  readonly name: string
  /** Runs on a batch of events; may read the database, change payloads and drop events. */
  run(events: readonly StageEvent[]): Promise<void>
  /** Writes what it keeps in memory (counters) before the thread stops. */
  close?(): Promise<void>
}

/** A request that cannot be processed: kept aside with the reason, never retried by itself. */
export interface ProcessFailure {
  request: AcceptedRequest
  reason: string
}

export interface Processed {
  events: IndexableEvent[]
  sessions: { request: AcceptedRequest; counts: SessionCount[] }[]
  failed: ProcessFailure[]
}

const bodyJson = (request: AcceptedRequest): unknown => JSON.parse(request.body.toString('utf8').replace(/^\uFEFF/, ''))

/** The sessions of a POST /sessions, validated as accept validated them; throws with the reason otherwise. */
function sessionsOf(request: AcceptedRequest): SessionCount[] {
  const parsed = sessionsPayloadSchema.safeParse(bodyJson(request))
  if (!parsed.success) throw new Error(`the payload no longer validates: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  return sessionCountsOf(request.projectId, request.receivedAt, parsed.data)
}

/** The body's payload, validated as accept validated it; throws with the reason otherwise. */
function payloadOf(request: AcceptedRequest) {
  const parsed = notifyPayloadSchema.safeParse(bodyJson(request))
  if (!parsed.success) throw new Error(`the payload no longer validates: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  if (parsed.data.events.length !== request.eventIds.length) {
    throw new Error(`the record names ${request.eventIds.length} event ids for ${parsed.data.events.length} events`)
  }
  return parsed.data
}

/** Why a request is set aside without being processed again (attempts.ts). */
export const ENDED_A_PROCESS = 'processing this request alone ended the process that ran it twice (out of memory or a crash); set aside so that it cannot stop Errata again'

/**
 * The process stage: `stages` run in order on each batch. With a `guard`, each batch is noted
 * while it is processed: a batch whose processing ended an earlier process throws (the log
 * sources then process it one request at a time), and a request that ended two alone is set
 * aside (attempts.ts).
 */
export function createProcessor(stages: readonly ProcessStage[] = [], guard?: AttemptGuard) {
  async function run(requests: readonly AcceptedRequest[]): Promise<Processed> {
    const staged: StageEvent[] = []
    const sessions: Processed['sessions'] = []
    const failed: ProcessFailure[] = []
    for (const request of requests) {
      try {
        if (request.kind === 'sessions') {
          sessions.push({ request, counts: sessionsOf(request) })
          continue
        }
        const events = prepareEvents(request.projectId, request.receivedAt, payloadOf(request), request.userAgent, request.eventIds)
        for (const event of events) staged.push({ event, changed: false, dropped: false })
      } catch (err) {
        failed.push({ request, reason: err instanceof Error ? err.message : String(err) })
      }
    }
    for (const stage of stages) await stage.run(staged.filter((s) => !s.dropped))
    const events: IndexableEvent[] = []
    for (const { event, changed, dropped } of staged) {
      if (dropped) continue
      const { payload, ...row } = event
      if (changed) {
        row.grouping = computeGrouping(payload.exceptions, payload.grouping_hash, payload.grouping_discriminator ?? null)
        const crashed = crashedSessionOf({ columns: row.columns, payload, grouping: row.grouping, userKey: row.userKey }, row.receivedAt)
        row.crashedSession = crashed
      }
      const codeSnippets = new Map<string, CodeLines>()
      const payloadJson = storedPayloadJson(payload, codeSnippets)
      events.push(codeSnippets.size > 0 ? { ...row, payloadJson, codeSnippets } : { ...row, payloadJson })
    }
    return { events, sessions, failed }
  }

  return {
    close: async () => {
      for (const stage of stages) await stage.close?.()
    },
    /** The events and sessions of `requests`, in order; requests that cannot be read come back in `failed`. */
    async process(requests: readonly AcceptedRequest[]): Promise<Processed> {
      if (!guard || requests.length === 0) return run(requests)
      const first = requests[0]!
      if ((await guard.begin(first, requests.length)) === 'set aside') return { events: [], sessions: [], failed: [{ request: first, reason: ENDED_A_PROCESS }] }
      try {
        return await run(requests)
      } finally {
        await guard.end(first)
      }
    },
  }
}

export type Processor = ReturnType<typeof createProcessor>
