import { z } from 'zod/mini'
import { DEFAULT_ERRORS_PER_PAGE, idSchema, perPageSchema, timestampSchema } from './common.ts'

/** Who uploaded a source map: the upload tools send the project's API key, which names no person. */
export const uploaderSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('api_key') }),
  z.object({ type: z.literal('user'), id: z.nullable(idSchema), name: z.nullable(z.string()), email: z.nullable(z.string()) }),
])
export type Uploader = z.infer<typeof uploaderSchema>

/** A source map upload (POST /sourcemap or /react-native-source-map), as the Data Access API lists it. */
export const sourceMapSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  /** `js` (browser and Node: applied by minified_url) or `react_native` (by platform and versions). */
  type: z.enum(['js', 'react_native']),
  /** The URL pattern (`*` wildcards) of the minified file; null for React Native. */
  minified_url: z.nullable(z.string()),
  /** null: uploaded without one (applies to events that have none). */
  app_version: z.nullable(z.string()),
  code_bundle_id: z.nullable(z.string()),
  /** React Native only (null otherwise): android or ios, appVersionCode / appBundleVersion, and the dev flag. */
  platform: z.nullable(z.string()),
  app_version_code: z.nullable(z.string()),
  dev: z.boolean(),
  project_root: z.nullable(z.string()),
  /** The map's own `file` field. */
  map_file: z.nullable(z.string()),
  sources_count: z.number().check(z.int()),
  has_minified_file: z.boolean(),
  /** Bytes of the upload's files as sent, and as stored (compressed). */
  size_bytes: z.number().check(z.int()),
  stored_bytes: z.number().check(z.int()),
  uploaded_by: uploaderSchema,
  uploaded_at: timestampSchema,
  /** Events this upload mapped frames of. */
  events_mapped: z.number().check(z.int()),
  url: z.string(),
})
export type SourceMap = z.infer<typeof sourceMapSchema>

export const listSourceMapsQuerySchema = z.object({
  per_page: perPageSchema(DEFAULT_ERRORS_PER_PAGE),
  cursor: z.optional(z.string()),
  /** Only uploads whose URL pattern or app version contains this text (case-insensitive). */
  q: z.optional(z.string().check(z.maxLength(1024, 'must be at most 1024 characters'))),
})
export type ListSourceMapsQuery = z.infer<typeof listSourceMapsQuerySchema>
