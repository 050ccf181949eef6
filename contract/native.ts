import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'

/**
 * A native symbol file as GET /projects/{id}/native_symbols lists it: a Breakpad .sym (`breakpad`)
 * or an ELF shared object or debug-only extract (`elf`), indexed when it was uploaded.
 */
export const nativeSymbolFileSchema = z.object({
  id: idSchema,
  kind: z.enum(['breakpad', 'elf']),
  /** The Breakpad debug id (33 upper-case hex characters): events' modules are matched on it. */
  debug_id: z.string(),
  /** The GNU build id, when the file has one. */
  code_id: z.nullable(z.string()),
  os: z.string(),
  /** x86, x86_64, arm, arm64, … */
  arch: z.string(),
  /** The module's file name, e.g. libcrash.so. */
  module_name: z.string(),
  /** The version the upload tool named, if any. */
  version: z.nullable(z.string()),
  has_symbols: z.boolean(),
  /** False for a stripped object: frames get function names at best, no file or line. */
  has_line_info: z.boolean(),
  has_inline_info: z.boolean(),
  /** Stack unwinding records (Breakpad STACK CFI), used to walk minidump stacks. */
  has_cfi: z.boolean(),
  /** Bytes as uploaded. */
  size: z.number(),
  uploaded_at: timestampSchema,
  /** Null for uploads made with the project's API key (the upload tools). */
  uploaded_by: z.nullable(z.object({ id: idSchema, name: z.string() })),
})
export type NativeSymbolFile = z.infer<typeof nativeSymbolFileSchema>
