import { z } from 'zod'
import { parseNotifierTime } from './notifier-time.ts'

/**
 * The Bugsnag Error Reporting payload (version 4) and session payload (version 1), as
 * the real notifiers send them. Only the envelope is validated strictly: a JSON object
 * whose `events` array holds objects, each with at least one exception that has an
 * `errorClass`. Without those there is nothing to store, so they answer 400 naming the
 * field. Every other field varies between notifiers (and sloppy clients), so it passes
 * through as sent and normalize.ts reads it tolerantly: a valid event is never refused
 * for one odd field.
 */

/** A field read tolerantly by normalize.ts: any value, or absent. */
const anything = z.unknown().optional()

const BODY_NOT_OBJECT = 'body: must be a JSON object (the Bugsnag payload)'

/**
 * An errorClass: a string, or a number a notifier sent (e.g. an HTTP status). null is an
 * exception whose class has no name (bugsnag-ruby sends `nil` for an anonymous class): kept as "".
 */
const errorClass = z
  .union([z.string(), z.number(), z.null()], { error: 'must be a string (every exception needs an errorClass)' })
  .transform((value) => (value === null ? '' : String(value)))

export const exceptionInputSchema = z.looseObject(
  {
    errorClass,
    // Read tolerantly in normalize.ts: a string, or anything else (ignored).
    errorMessage: anything,
    message: anything,
    type: anything,
    stacktrace: anything,
  },
  { error: 'must be an object' },
)

export const eventInputSchema = z.looseObject(
  {
    exceptions: z
      .array(exceptionInputSchema, { error: 'must be an array of exceptions' })
      .min(1, 'must hold at least one exception'),
    // Everything below is optional and read tolerantly by normalize.ts.
    severity: anything,
    unhandled: anything,
    severityReason: anything,
    context: anything,
    groupingHash: anything,
    groupingDiscriminator: anything,
    app: anything,
    device: anything,
    request: anything,
    user: anything,
    metaData: anything,
    breadcrumbs: anything,
    featureFlags: anything,
    threads: anything,
    session: anything,
    // Event-level fields of older payloads and bugsnag-python (releaseStage); sections win.
    releaseStage: anything,
    appVersion: anything,
    osVersion: anything,
    userId: anything,
  },
  { error: 'must be an object (one event)' },
)

export const notifyPayloadSchema = z.looseObject(
  {
    apiKey: anything,
    notifier: anything,
    events: z.array(eventInputSchema, { error: 'must be an array of events' }).min(1, 'must hold at least one event'),
  },
  { error: BODY_NOT_OBJECT },
)

export type EventInput = z.infer<typeof eventInputSchema>
export type NotifyPayload = z.infer<typeof notifyPayloadSchema>

// PostgreSQL timestamptz covers 4713 BC to 294276 AD, JS dates more; stay in years 1 to 9999.
const timestamp = z.string().refine((value) => {
  const time = parseNotifierTime(value)
  if (Number.isNaN(time)) return false
  const year = new Date(time).getUTCFullYear()
  return year >= 1 && year <= 9999
}, 'must be an ISO 8601 timestamp')

/** A session label (release stage, version): text PostgreSQL can store, of bounded length. */
const sessionLabel = z
  .union([z.string(), z.number()])
  .transform((value) =>
    String(value)
      .replaceAll('\u0000', '')
      .slice(0, 255)
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  )
  .nullish()
  .catch(null)

/** Node sends per-minute `sessionCounts` (Go 1.x one such object); browsers send one entry per session in `sessions`. */
export const sessionsPayloadSchema = z
  .looseObject(
    {
      apiKey: anything,
      app: z.looseObject({ releaseStage: sessionLabel, version: sessionLabel }).nullish().catch(null),
      sessionCounts: z
        // bugsnag-go 1.x sends one count as an object, not a list of them.
        .preprocess(
          (value) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? [value] : value),
          // A cap far above any real minute keeps the bigint counters from overflowing.
          z.array(z.looseObject({ startedAt: timestamp, sessionsStarted: z.number().int().min(0).max(1_000_000_000) })),
        )
        .nullish(),
      sessions: z.array(z.looseObject({ id: anything, startedAt: timestamp, user: anything })).nullish(),
    },
    { error: BODY_NOT_OBJECT },
  )
  .refine((p) => p.sessionCounts != null || p.sessions != null, {
    message: 'needs sessionCounts or sessions',
    path: ['sessions'],
  })
export type SessionsPayload = z.infer<typeof sessionsPayloadSchema>
