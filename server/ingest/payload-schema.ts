import { z } from 'zod'

/**
 * The Bugsnag Error Reporting payload (version 4) and session payload (version 1), as
 * the real notifiers send them. Lenient on purpose: unknown keys pass through (looseObject)
 * and scalars the notifiers send in either form (line numbers as strings or numbers,
 * numeric user ids) are accepted; only what we cannot store meaningfully is refused.
 */

const jsonObject = z.record(z.string(), z.unknown())
/** A string, or a number a notifier sent where a string is meant (user ids, versions). */
const looseString = z.union([z.string(), z.number()]).transform(String)
const optionalString = looseString.nullish()
const lineOrColumn = z.union([z.number(), z.string()]).nullish()

export const stackFrameInputSchema = z.looseObject({
  file: optionalString,
  method: optionalString,
  lineNumber: lineOrColumn,
  columnNumber: lineOrColumn,
  inProject: z.boolean().nullish(),
  code: z.record(z.string(), z.unknown()).nullish(),
})

export const exceptionInputSchema = z.looseObject({
  errorClass: z.string({ error: 'must be a string (every exception needs an errorClass)' }),
  errorMessage: optionalString,
  message: optionalString,
  type: optionalString,
  stacktrace: z.array(stackFrameInputSchema).nullish(),
})

const breadcrumbInputSchema = z.looseObject({
  name: optionalString,
  type: optionalString,
  timestamp: optionalString,
  metaData: jsonObject.nullish(),
})

const featureFlagInputSchema = z.looseObject({
  featureFlag: looseString,
  variant: optionalString,
})

const threadInputSchema = z.looseObject({
  id: optionalString,
  name: optionalString,
  type: optionalString,
  errorReportingThread: z.boolean().nullish(),
  state: optionalString,
  stacktrace: z.array(stackFrameInputSchema).nullish(),
})

const userInputSchema = z.looseObject({ id: optionalString, email: optionalString, name: optionalString })

export const eventInputSchema = z.looseObject({
  exceptions: z.array(exceptionInputSchema).min(1, 'must hold at least one exception'),
  severity: z.enum(['error', 'warning', 'info']).nullish(),
  unhandled: z.boolean().nullish(),
  severityReason: z.looseObject({ type: optionalString }).nullish(),
  context: optionalString,
  groupingHash: optionalString,
  app: z.looseObject({ releaseStage: optionalString, version: optionalString }).nullish(),
  device: z
    .looseObject({
      osName: optionalString,
      osVersion: optionalString,
      browserName: optionalString,
      browserVersion: optionalString,
      userAgent: optionalString,
      model: optionalString,
      id: optionalString,
    })
    .nullish(),
  request: z.looseObject({ url: optionalString, headers: jsonObject.nullish() }).nullish(),
  user: userInputSchema.nullish(),
  metaData: jsonObject.nullish(),
  breadcrumbs: z.array(breadcrumbInputSchema).nullish(),
  featureFlags: z.array(featureFlagInputSchema).nullish(),
  threads: z.array(threadInputSchema).nullish(),
  session: jsonObject.nullish(),
})

export const notifyPayloadSchema = z.looseObject({
  apiKey: optionalString,
  notifier: jsonObject.nullish(),
  events: z.array(eventInputSchema).min(1, 'must hold at least one event'),
})

export type StackFrameInput = z.infer<typeof stackFrameInputSchema>
export type ExceptionInput = z.infer<typeof exceptionInputSchema>
export type EventInput = z.infer<typeof eventInputSchema>
export type NotifyPayload = z.infer<typeof notifyPayloadSchema>

const timestamp = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 timestamp')

/** Node sends per-minute `sessionCounts`; browsers send one entry per session in `sessions`. */
export const sessionsPayloadSchema = z
  .looseObject({
    apiKey: optionalString,
    app: z.looseObject({ releaseStage: optionalString, version: optionalString }).nullish(),
    sessionCounts: z
      .array(z.looseObject({ startedAt: timestamp, sessionsStarted: z.number().int().min(0) }))
      .nullish(),
    sessions: z.array(z.looseObject({ id: optionalString, startedAt: timestamp, user: userInputSchema.nullish() })).nullish(),
  })
  .refine((p) => p.sessionCounts != null || p.sessions != null, {
    message: 'needs sessionCounts or sessions',
    path: ['sessions'],
  })
export type SessionsPayload = z.infer<typeof sessionsPayloadSchema>
