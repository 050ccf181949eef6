import { z } from 'zod'
import { DEFAULT_ERRORS_PER_PAGE, idSchema, perPageSchema, timestampSchema } from './common.ts'

/** Who uploaded a source map: the upload tools send the project's API key, which names no person. */
export const uploaderSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('api_key') }),
  z.object({ type: z.literal('user'), id: idSchema.nullable(), name: z.string().nullable(), email: z.string().nullable() }),
])
export type Uploader = z.infer<typeof uploaderSchema>

/** A source map upload (POST /sourcemap or /react-native-source-map), as the Data Access API lists it. */
export const sourceMapSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  /** `js` (browser and Node: applied by minified_url) or `react_native` (by platform and versions). */
  type: z.enum(['js', 'react_native']),
  /** The URL pattern (`*` wildcards) of the minified file; null for React Native. */
  minified_url: z.string().nullable(),
  /** null: uploaded without one (applies to events that have none). */
  app_version: z.string().nullable(),
  code_bundle_id: z.string().nullable(),
  /** React Native only (null otherwise): android or ios, appVersionCode / appBundleVersion, and the dev flag. */
  platform: z.string().nullable(),
  app_version_code: z.string().nullable(),
  dev: z.boolean(),
  project_root: z.string().nullable(),
  /** The map's own `file` field. */
  map_file: z.string().nullable(),
  sources_count: z.number().int(),
  has_minified_file: z.boolean(),
  /** Bytes of the upload's files as sent, and as stored (compressed). */
  size_bytes: z.number().int(),
  stored_bytes: z.number().int(),
  uploaded_by: uploaderSchema,
  uploaded_at: timestampSchema,
  /** Events this upload mapped frames of. */
  events_mapped: z.number().int(),
  url: z.string(),
})
export type SourceMap = z.infer<typeof sourceMapSchema>

export const listSourceMapsQuerySchema = z.object({
  per_page: perPageSchema(DEFAULT_ERRORS_PER_PAGE),
  cursor: z.string().optional(),
  /** Only uploads whose URL pattern or app version contains this text (case-insensitive). */
  q: z.string().max(1024, 'must be at most 1024 characters').optional(),
})
export type ListSourceMapsQuery = z.infer<typeof listSourceMapsQuerySchema>
