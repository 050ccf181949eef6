import { z } from 'zod'
import { directionSchema, DEFAULT_EVENTS_PER_PAGE, idSchema, perPageSchema, timestampSchema } from './common.ts'
import { severitySchema } from './errors.ts'
import { readIsoTime } from './iso-time.ts'

const jsonObject = z.record(z.string(), z.unknown())

/**
 * What ends a string the server cut at ingest (the first 32,768 characters are kept, see
 * docs/ingestion.md), so the dashboard can say the value is not whole.
 */
export const TRUNCATION_MARKER = '…[truncated]'

/** A hexadecimal address as Errata stores it: "0x" and lower-case digits. */
const addressSchema = z.string().regex(/^0x[0-9a-f]+$/)

/**
 * What a native notifier (Android NDK, Cocoa, …) sends about a frame of machine code: the
 * addresses that symbol files resolve, and the module (shared object, Mach-O image) holding it.
 */
export const nativeFrameSchema = z.object({
  /** The frame's platform as the notifier names it: "c" (Android NDK), "cocoa", … */
  type: z.string().nullable(),
  /** The module's path on the device: the shared object (`file`) or the Mach-O image (`machoFile`). */
  module: z.string().nullable(),
  frame_address: addressSchema.nullable(),
  load_address: addressSchema.nullable(),
  symbol_address: addressSchema.nullable(),
  /** frame_address − load_address: the address inside the module, which symbol files are keyed on. */
  relative_address: addressSchema.nullable(),
  /** The frame is the program counter (the crashing instruction), not a return address. */
  is_pc: z.boolean(),
  /** The frame came from the link register (iOS). */
  is_lr: z.boolean(),
  /** The module's build id (the GNU build id of an Android shared object). */
  code_identifier: z.string().nullable(),
  macho_uuid: z.string().nullable(),
  macho_vm_address: addressSchema.nullable(),
})
export type NativeFrame = z.infer<typeof nativeFrameSchema>

/** A JavaScript frame as the notifier sent it, kept beside the frame a source map turned it into. */
export const minifiedFrameSchema = z.object({
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  file: z.string().nullable(),
  method: z.string().nullable(),
  in_project: z.boolean(),
  code: z.record(z.string(), z.string()).nullable(),
})
export type MinifiedFrame = z.infer<typeof minifiedFrameSchema>

export const stackFrameSchema = z.object({
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  file: z.string().nullable(),
  method: z.string().nullable(),
  in_project: z.boolean(),
  /** Source lines around the failing one, keyed by line number (as sent by the notifier, or from the source map). */
  code: z.record(z.string(), z.string()).nullable(),
  /** Present only on frames of native code (the notifier sent addresses). */
  native: nativeFrameSchema.optional(),
  /**
   * Present only on frames a source map mapped: the frame as sent (minified file, line, column
   * and name); the fields above then hold the original source's.
   */
  minified: minifiedFrameSchema.optional(),
  /** The source map upload that mapped the frame (absent for a map fetched by URL). */
  source_map_id: z.string().optional(),
})
export type StackFrame = z.infer<typeof stackFrameSchema>

/** CPU registers a native notifier captured for one frame of a crash. */
export const registersSchema = z.object({
  frame_index: z.number().int().nullable(),
  values: z.array(z.object({ name: z.string(), value: z.string() })),
})
export type FrameRegisters = z.infer<typeof registersSchema>

export const exceptionSchema = z.object({
  class: z.string(),
  message: z.string(),
  type: z.string().nullable(),
  stacktrace: z.array(stackFrameSchema),
  /** Present only when the notifier sent registers (native crashes). */
  registers: z.array(registersSchema).optional(),
})
export type EventException = z.infer<typeof exceptionSchema>

export const breadcrumbSchema = z.object({
  timestamp: z.string().nullable(),
  name: z.string(),
  type: z.string(),
  meta_data: jsonObject,
})
export type Breadcrumb = z.infer<typeof breadcrumbSchema>

export const featureFlagSchema = z.object({ name: z.string(), variant: z.string().nullable() })
export type FeatureFlag = z.infer<typeof featureFlagSchema>

export const threadSchema = z.object({
  id: z.string().nullable(),
  name: z.string().nullable(),
  type: z.string().nullable(),
  error_reporting_thread: z.boolean(),
  state: z.string().nullable(),
  stacktrace: z.array(stackFrameSchema),
})
export type EventThread = z.infer<typeof threadSchema>

/**
 * How the event's JavaScript frames were symbolicated (absent when it has none to map):
 * `mapped` every one, `partial` some, `missing` none for want of a source map, `failed` none
 * although maps were found (see `errors`). `missing` names each file without a map and the
 * app version looked for, so the dashboard can say which map to upload.
 */
export const symbolicationSchema = z.object({
  status: z.enum(['mapped', 'partial', 'missing', 'failed']),
  mapped_frames: z.number().int(),
  missing: z.array(
    z.object({
      url: z.string(),
      app_version: z.string().nullable(),
      /** React Native frames match by platform and version codes, not by URL. */
      platform: z.string().nullable().optional(),
      app_version_code: z.string().nullable().optional(),
      code_bundle_id: z.string().nullable().optional(),
    }),
  ),
  errors: z.array(z.object({ url: z.string(), message: z.string() })),
})
export type Symbolication = z.infer<typeof symbolicationSchema>

export const eventUserSchema = z.object({
  id: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
})

/** The Events API resource (spec section 2) plus what the dashboard needs from the stored payload. */
export const eventSchema = z.object({
  id: idSchema,
  url: z.string(),
  html_url: z.string(),
  project_id: idSchema,
  error_id: idSchema,
  received_at: timestampSchema,
  severity: severitySchema,
  unhandled: z.boolean(),
  severity_reason: z.string().nullable(),
  /** The notifier's details of that reason, e.g. {framework: "Express"} or {signalType: "SIGSEGV"}; absent when none were sent. */
  severity_reason_attributes: z.record(z.string(), z.string()).optional(),
  context: z.string().nullable(),
  grouping_hash: z.string().nullable(),
  /** The notifier's grouping discriminator (event.setGroupingDiscriminator), which splits a group; absent when none was sent. */
  grouping_discriminator: z.string().optional(),
  app_version: z.string().nullable(),
  release_stage: z.string().nullable(),
  os_version: z.string().nullable(),
  user_id: z.string().nullable(),
  exceptions: z.array(exceptionSchema),
  meta_data: jsonObject,
  user: eventUserSchema,
  app: jsonObject,
  device: jsonObject,
  request: jsonObject,
  breadcrumbs: z.array(breadcrumbSchema),
  feature_flags: z.array(featureFlagSchema),
  threads: z.array(threadSchema),
  session: jsonObject.nullable(),
  notifier: jsonObject.nullable(),
  /** Set by source-map symbolication (server/symbolication/javascript.ts). */
  symbolication: symbolicationSchema.optional(),
})
export type ErrorEvent = z.infer<typeof eventSchema>

/**
 * start_time / end_time: any ISO 8601 or RFC 3339 form (contract/iso-time.ts), read as a Date;
 * a refusal says exactly what is wrong.
 */
const windowTimeSchema = z.string().transform((text, ctx) => {
  const reading = readIsoTime(text)
  if (reading.time) return reading.time
  ctx.addIssue({ code: 'custom', message: reading.problem })
  return z.NEVER
})

/** `true` or `false` in a query string. */
const queryBooleanSchema = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true')

export const listEventsQuerySchema = z.object({
  /** `timestamp` is the name Bugsnag's generated clients send for the same order. */
  sort: z.enum(['created_at', 'timestamp'], { error: 'must be created_at or timestamp (the same order: when received)' }).default('created_at'),
  direction: directionSchema.default('desc'),
  per_page: perPageSchema(DEFAULT_EVENTS_PER_PAGE),
  start_time: windowTimeSchema.optional(),
  end_time: windowTimeSchema.optional(),
  /** Bugsnag's clients ask for whole events with true; Errata's lists always carry them. */
  full_reports: queryBooleanSchema.optional(),
  cursor: z.string().optional(),
  /**
   * Starts the list right after this event, in the list's order (desc: older events, asc:
   * newer): how the dashboard finds an event's neighbours, ties in received_at included.
   */
  after_event: idSchema.optional(),
})
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>
