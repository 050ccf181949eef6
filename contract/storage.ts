// Disk use (docs/operations.md, "Disk space"): a project's, `GET /projects/{id}/storage`, and this
// server's, `GET /organizations/{id}/storage` (admins; the server is shared by every organization).
import { z } from 'zod/mini'
import { timestampSchema } from './common.ts'

const int = () => z.number().check(z.int())

/** What one kind of a project's data takes, in bytes. */
const storagePartSchema = z.object({ count: int(), bytes: int() })

export const projectStorageSchema = z.object({
  measured_at: timestampSchema,
  /** All below together. */
  total_bytes: int(),
  /** The events' rows (without their payloads). */
  events: storagePartSchema,
  /** The events' stored payloads, as received (compressed by the database). */
  payloads: storagePartSchema,
  /**
   * How many of the latest events the sizes were measured on: when fewer than `events.count`,
   * events and payloads are that sample's average times the count (an estimate).
   */
  sampled_events: int(),
  /** Uploaded source maps with their minified files and sources (stored gzip'd). */
  source_maps: storagePartSchema,
  /** Privacy exports of this project's events still kept for download. */
  privacy_exports: storagePartSchema,
})
export type ProjectStorage = z.infer<typeof projectStorageSchema>

export const serverStorageSchema = z.object({
  database: z.object({
    engine: z.enum(['pglite', 'postgres']),
    /** pg_database_size of Errata's database. */
    bytes: int(),
    /** The embedded database: DATA_DIR's whole size on disk (journal and privacy exports included); null on PostgreSQL. */
    data_dir_bytes: z.nullable(int()),
    measured_at: timestampSchema,
  }),
  /** DATA_DIR's file system; null when DATA_DIR does not exist (PostgreSQL keeps everything in the database). */
  disk: z.nullable(
    z.object({
      free_bytes: int(),
      total_bytes: int(),
      /** ERRATA_MIN_FREE_DISK on this file system. */
      min_free_bytes: int(),
      /** Below the threshold: events (503) and uploads (507) are being refused. */
      low: z.boolean(),
      checked_at: timestampSchema,
    }),
  ),
})
export type ServerStorage = z.infer<typeof serverStorageSchema>
