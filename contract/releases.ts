// Releases (docs/releases.md): an app version in a release stage of a project, with its build
// details (POST /build) and its figures. The fields follow Bugsnag's Data Access API: a release
// ("build" in Bugsnag's dashboard) and a release group (a version in a release stage). Errata
// keeps one release per version and release stage, so each release group holds one release.
import { z } from 'zod'
import { directionSchema, idSchema, perPageSchema, timestampSchema } from './common.ts'

export const RELEASE_SOURCES = ['event', 'session', 'build_api'] as const

export const sourceControlSchema = z.object({
  provider: z.string().nullable(),
  repository: z.string(),
  revision: z.string(),
  /** The revision on the provider's site (GitHub, GitLab, Bitbucket); null for other hosts. */
  revision_url: z.string().nullable(),
})
export type SourceControl = z.infer<typeof sourceControlSchema>

/** What a release and a release group both report. */
const releaseFigures = {
  /** Sessions started in the release, all time and in the last 24 hours. */
  total_sessions_count: z.number().int(),
  sessions_count_in_last_24h: z.number().int(),
  /** Sessions that had an unhandled event. */
  unhandled_sessions_count: z.number().int(),
  /** 1 − unhandled / total sessions, clamped to [0, 1]; null without sessions. */
  crash_free_rate: z.number().nullable(),
  /** Errors whose first event came from this release. */
  errors_introduced_count: z.number().int(),
  /** Errors with events in this release. */
  errors_seen_count: z.number().int(),
  /** Errors fixed earlier that an event of this release reopened. */
  regressions_count: z.number().int(),
}

export const releaseSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  release_group_id: idSchema,
  app_version: z.string(),
  app_version_code: z.string().nullable(),
  app_bundle_version: z.string().nullable(),
  release_stage: z.string(),
  /** When it was first seen or reported built, whichever came first. */
  release_time: timestampSchema,
  release_source: z.enum(RELEASE_SOURCES),
  builder_name: z.string().nullable(),
  build_tool: z.string().nullable(),
  source_control: sourceControlSchema.nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  ...releaseFigures,
  url: z.string(),
  html_url: z.string(),
})
export type Release = z.infer<typeof releaseSchema>

export const releaseGroupSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  release_stage_name: z.string(),
  app_version: z.string(),
  first_released_at: timestampSchema,
  first_release_id: idSchema,
  releases_count: z.number().int(),
  /** Every release group is shown in the dashboard. */
  visible: z.boolean(),
  builder_name: z.string().nullable(),
  source_control: sourceControlSchema.nullable(),
  ...releaseFigures,
  url: z.string(),
})
export type ReleaseGroup = z.infer<typeof releaseGroupSchema>

const queryBoolean = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true')

export const DEFAULT_RELEASES_PER_PAGE = 30

/** GET /projects/{id}/releases: newest first by default. */
export const listReleasesQuerySchema = z.object({
  release_stage: z.string().min(1, 'must not be empty').max(1024).optional(),
  /** `timestamp` is Bugsnag's name for the same order. */
  sort: z.enum(['release_time', 'timestamp'], { error: 'must be release_time or timestamp' }).default('release_time'),
  direction: directionSchema.default('desc'),
  per_page: perPageSchema(DEFAULT_RELEASES_PER_PAGE),
  cursor: z.string().optional(),
})
export type ListReleasesQuery = z.infer<typeof listReleasesQuerySchema>

/** GET /projects/{id}/release_groups, as Bugsnag's clients call it. */
export const listReleaseGroupsQuerySchema = z.object({
  release_stage_name: z.string().min(1, 'must not be empty').max(1024).optional(),
  /** true: only release groups with sessions in the last 24 hours. */
  top_only: queryBoolean.default(false),
  /** Every release group is visible: true and false list the same. */
  visible_only: queryBoolean.default(false),
  per_page: perPageSchema(DEFAULT_RELEASES_PER_PAGE),
  cursor: z.string().optional(),
})
export type ListReleaseGroupsQuery = z.infer<typeof listReleaseGroupsQuerySchema>

const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => (v === undefined || v === null || v.trim() === '' ? null : v.trim()))

/**
 * The body of POST /build as bugsnag-build-reporter and the Bugsnag CLI send it. Unknown
 * fields are ignored, as Bugsnag's build API does.
 */
export const buildReportSchema = z.object({
  apiKey: z.string({ error: "required: the project's API key" }),
  appVersion: z
    .string({ error: 'required: the version that was built' })
    .trim()
    .min(1, 'required: the version that was built')
    .max(1024, 'must be at most 1024 characters'),
  releaseStage: optionalText(1024),
  builderName: optionalText(1024),
  buildTool: optionalText(256),
  appVersionCode: z.union([z.string(), z.number()]).nullish().transform((v) => (v === undefined || v === null || v === '' ? null : String(v))),
  appBundleVersion: optionalText(256),
  sourceControl: z
    .object(
      {
        provider: optionalText(64),
        repository: z.string({ error: 'required in sourceControl' }).min(1, 'must not be empty').max(2048),
        revision: z.string({ error: 'required in sourceControl' }).min(1, 'must not be empty').max(256),
      },
      { error: 'must be an object {provider, repository, revision}' },
    )
    .nullish(),
  metadata: z
    .record(z.string().max(256), z.string({ error: 'values must be strings' }).max(4096), { error: 'must be an object of strings' })
    .refine((m) => Object.keys(m).length <= 100, 'at most 100 keys')
    .nullish(),
})
export type BuildReport = z.infer<typeof buildReportSchema>
