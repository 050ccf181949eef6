import { z } from 'zod/mini'
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
const addressSchema = z.string().check(z.regex(/^0x[0-9a-f]+$/))

/**
 * What a native notifier (Android NDK, Cocoa, …) sends about a frame of machine code: the
 * addresses that symbol files resolve, and the module (shared object, Mach-O image) holding it.
 */
export const nativeFrameSchema = z.object({
  /** The frame's platform as the notifier names it: "c" (Android NDK), "cocoa", … */
  type: z.nullable(z.string()),
  /** The module's path on the device: the shared object (`file`) or the Mach-O image (`machoFile`). */
  module: z.nullable(z.string()),
  frame_address: z.nullable(addressSchema),
  load_address: z.nullable(addressSchema),
  symbol_address: z.nullable(addressSchema),
  /** frame_address − load_address: the address inside the module, which symbol files are keyed on. */
  relative_address: z.nullable(addressSchema),
  /** The frame is the program counter (the crashing instruction), not a return address. */
  is_pc: z.boolean(),
  /** The frame came from the link register (iOS). */
  is_lr: z.boolean(),
  /** The module's build id (the GNU build id of an Android shared object). */
  code_identifier: z.nullable(z.string()),
  macho_uuid: z.nullable(z.string()),
  macho_vm_address: z.nullable(addressSchema),
  /** The module's Breakpad debug id, when the frame came with one (frames of a minidump). */
  debug_id: z.optional(z.string()),
  /**
   * The module-relative address symbols are looked up at, when it is not relative_address: a
   * return address moved back into its call instruction (frames a minidump's stack walk found).
   */
  lookup_address: z.optional(addressSchema),
  /** How a minidump's stack walk found the frame: the crash context, unwind records (cfi), the frame-pointer chain, or a stack scan. */
  trust: z.optional(z.enum(['context', 'cfi', 'frame_pointer', 'scan'])),
  /** Set once symbols resolved the frame: the frame as it came (function, file and line), and the symbol file used. */
  symbolicated_from: z.optional(z.object({ method: z.nullable(z.string()), file: z.nullable(z.string()), line: z.nullable(z.number().check(z.int())) })),
  symbol_file_id: z.optional(z.string()),
  /** A frame of inlined code: it shares its address with the frame after it. */
  inlined: z.optional(z.boolean()),
})
export type NativeFrame = z.infer<typeof nativeFrameSchema>

/** A JavaScript frame as the notifier sent it, kept beside the frame a source map turned it into. */
export const minifiedFrameSchema = z.object({
  line: z.nullable(z.number().check(z.int())),
  column: z.nullable(z.number().check(z.int())),
  file: z.nullable(z.string()),
  method: z.nullable(z.string()),
  in_project: z.boolean(),
  code: z.nullable(z.record(z.string(), z.string())),
})
export type MinifiedFrame = z.infer<typeof minifiedFrameSchema>

export const stackFrameSchema = z.object({
  line: z.nullable(z.number().check(z.int())),
  column: z.nullable(z.number().check(z.int())),
  file: z.nullable(z.string()),
  method: z.nullable(z.string()),
  in_project: z.boolean(),
  /** Source lines around the failing one, keyed by line number (as sent by the notifier, or from the source map). */
  code: z.nullable(z.record(z.string(), z.string())),
  /** Present only on frames of native code (the notifier sent addresses). */
  native: z.optional(nativeFrameSchema),
  /**
   * Present only on frames a source map mapped: the frame as sent (minified file, line, column
   * and name); the fields above then hold the original source's.
   */
  minified: z.optional(minifiedFrameSchema),
  /** The source map upload that mapped the frame (absent for a map fetched by URL). */
  source_map_id: z.optional(z.string()),
})
export type StackFrame = z.infer<typeof stackFrameSchema>

/** CPU registers a native notifier captured for one frame of a crash. */
export const registersSchema = z.object({
  frame_index: z.nullable(z.number().check(z.int())),
  values: z.array(z.object({ name: z.string(), value: z.string() })),
})
export type FrameRegisters = z.infer<typeof registersSchema>

export const exceptionSchema = z.object({
  class: z.string(),
  message: z.string(),
  type: z.nullable(z.string()),
  stacktrace: z.array(stackFrameSchema),
  /** Present only when the notifier sent registers (native crashes). */
  registers: z.optional(z.array(registersSchema)),
})
export type EventException = z.infer<typeof exceptionSchema>

export const breadcrumbSchema = z.object({
  timestamp: z.nullable(z.string()),
  name: z.string(),
  type: z.string(),
  meta_data: jsonObject,
})
export type Breadcrumb = z.infer<typeof breadcrumbSchema>

export const featureFlagSchema = z.object({ name: z.string(), variant: z.nullable(z.string()) })
export type FeatureFlag = z.infer<typeof featureFlagSchema>

export const threadSchema = z.object({
  id: z.nullable(z.string()),
  name: z.nullable(z.string()),
  type: z.nullable(z.string()),
  error_reporting_thread: z.boolean(),
  state: z.nullable(z.string()),
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
  mapped_frames: z.number().check(z.int()),
  missing: z.array(
    z.object({
      url: z.string(),
      app_version: z.nullable(z.string()),
      /** React Native frames match by platform and version codes, not by URL. */
      platform: z.optional(z.nullable(z.string())),
      app_version_code: z.optional(z.nullable(z.string())),
      code_bundle_id: z.optional(z.nullable(z.string())),
    }),
  ),
  errors: z.array(z.object({ url: z.string(), message: z.string() })),
})
export type Symbolication = z.infer<typeof symbolicationSchema>

/**
 * How the event's native frames (those with a module id and an address) were symbolicated:
 * `symbolicated` all, `partial` some, `missing` none; `missing` names each module no symbol file
 * was found for, so the dashboard can say what to upload.
 */
export const nativeSymbolicationSchema = z.object({
  status: z.enum(['symbolicated', 'partial', 'missing']),
  symbolicated_frames: z.number().check(z.int()),
  missing: z.array(z.object({ module: z.nullable(z.string()), debug_id: z.string(), code_id: z.nullable(z.string()) })),
})
export type NativeSymbolication = z.infer<typeof nativeSymbolicationSchema>

export const eventUserSchema = z.object({
  id: z.nullable(z.string()),
  email: z.nullable(z.string()),
  name: z.nullable(z.string()),
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
  severity_reason: z.nullable(z.string()),
  /** The notifier's details of that reason, e.g. {framework: "Express"} or {signalType: "SIGSEGV"}; absent when none were sent. */
  severity_reason_attributes: z.optional(z.record(z.string(), z.string())),
  context: z.nullable(z.string()),
  grouping_hash: z.nullable(z.string()),
  /** The notifier's grouping discriminator (event.setGroupingDiscriminator), which splits a group; absent when none was sent. */
  grouping_discriminator: z.optional(z.string()),
  app_version: z.nullable(z.string()),
  release_stage: z.nullable(z.string()),
  os_version: z.nullable(z.string()),
  user_id: z.nullable(z.string()),
  exceptions: z.array(exceptionSchema),
  meta_data: jsonObject,
  user: eventUserSchema,
  app: jsonObject,
  device: jsonObject,
  request: jsonObject,
  breadcrumbs: z.array(breadcrumbSchema),
  feature_flags: z.array(featureFlagSchema),
  threads: z.array(threadSchema),
  session: z.nullable(jsonObject),
  notifier: z.nullable(jsonObject),
  /** Set by source-map symbolication (server/symbolication/javascript.ts). */
  symbolication: z.optional(symbolicationSchema),
  /** Set by native symbolication (server/symbolication/native.ts). */
  native_symbolication: z.optional(nativeSymbolicationSchema),
  /** A minidump event's dump, kept for download by admins (GET …/events/{id}/minidump). */
  minidump: z.optional(z.object({ size: z.number() })),
})
export type ErrorEvent = z.infer<typeof eventSchema>

/**
 * start_time / end_time: any ISO 8601 or RFC 3339 form (contract/iso-time.ts), read as a Date;
 * a refusal says exactly what is wrong.
 */
const windowTimeSchema = z.pipe(
  z.string(),
  z.transform((text, ctx) => {
    const reading = readIsoTime(text)
    if (reading.time) return reading.time
    ctx.issues.push({ code: 'custom', message: reading.problem, input: text })
    return z.NEVER
  }),
)

/** `true` or `false` in a query string. */
const queryBooleanSchema = z.pipe(
  z.enum(['true', 'false'], { error: 'must be true or false' }),
  z.transform((v) => v === 'true'),
)

export const listEventsQuerySchema = z.object({
  /** `timestamp` is the name Bugsnag's generated clients send for the same order. */
  sort: z._default(
    z.enum(['created_at', 'timestamp'], { error: 'must be created_at or timestamp (the same order: when received)' }),
    'created_at',
  ),
  direction: z._default(directionSchema, 'desc'),
  per_page: perPageSchema(DEFAULT_EVENTS_PER_PAGE),
  start_time: z.optional(windowTimeSchema),
  end_time: z.optional(windowTimeSchema),
  /** Bugsnag's clients ask for whole events with true; Errata's lists always carry them. */
  full_reports: z.optional(queryBooleanSchema),
  cursor: z.optional(z.string()),
  /**
   * Starts the list right after this event, in the list's order (desc: older events, asc:
   * newer): how the dashboard finds an event's neighbours, ties in received_at included.
   */
  after_event: z.optional(idSchema),
})
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>
