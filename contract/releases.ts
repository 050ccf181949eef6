// Releases (docs/releases.md): an app version in a release stage of a project, with its build
// details (POST /build) and its figures. The fields follow Bugsnag's Data Access API: a release
// ("build" in Bugsnag's dashboard) and a release group (a version in a release stage). Errata
// keeps one release per version and release stage, so each release group holds one release.
import { z } from 'zod/mini'
import { directionSchema, idSchema, perPageSchema, timestampSchema } from './common.ts'

export const RELEASE_SOURCES = ['event', 'session', 'build_api'] as const

export const sourceControlSchema = z.object({
  provider: z.nullable(z.string()),
  repository: z.string(),
  revision: z.string(),
  /** The revision on the provider's site (GitHub, GitLab, Bitbucket); null for other hosts. */
  revision_url: z.nullable(z.string()),
})
export type SourceControl = z.infer<typeof sourceControlSchema>

/** What a release and a release group both report. */
const releaseFigures = {
  /** Sessions started in the release, all time and in the last 24 hours. */
  total_sessions_count: z.number().check(z.int()),
  sessions_count_in_last_24h: z.number().check(z.int()),
  /** Sessions that had an unhandled event. */
  unhandled_sessions_count: z.number().check(z.int()),
  /** 1 − unhandled / total sessions, clamped to [0, 1]; null without sessions. */
  crash_free_rate: z.nullable(z.number()),
  /** Errors whose first event came from this release. */
  errors_introduced_count: z.number().check(z.int()),
  /** Errors with events in this release. */
  errors_seen_count: z.number().check(z.int()),
  /** Errors fixed earlier that an event of this release reopened. */
  regressions_count: z.number().check(z.int()),
}

export const releaseSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  release_group_id: idSchema,
  app_version: z.string(),
  app_version_code: z.nullable(z.string()),
  app_bundle_version: z.nullable(z.string()),
  release_stage: z.string(),
  /** When it was first seen or reported built, whichever came first. */
  release_time: timestampSchema,
  release_source: z.enum(RELEASE_SOURCES),
  builder_name: z.nullable(z.string()),
  build_tool: z.nullable(z.string()),
  source_control: z.nullable(sourceControlSchema),
  metadata: z.nullable(z.record(z.string(), z.string())),
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
  releases_count: z.number().check(z.int()),
  /** Every release group is shown in the dashboard. */
  visible: z.boolean(),
  builder_name: z.nullable(z.string()),
  source_control: z.nullable(sourceControlSchema),
  ...releaseFigures,
  url: z.string(),
})
export type ReleaseGroup = z.infer<typeof releaseGroupSchema>

const queryBoolean = z.pipe(
  z.enum(['true', 'false'], { error: 'must be true or false' }),
  z.transform((v) => v === 'true'),
)

export const DEFAULT_RELEASES_PER_PAGE = 30

/** GET /projects/{id}/releases: newest first by default. */
export const listReleasesQuerySchema = z.object({
  release_stage: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(1024))),
  /**
   * `timestamp` is Bugsnag's name for release_time. `version`: by release stage, then by version
   * (contract/versions.ts), so each release follows the version it replaced.
   */
  sort: z._default(
    z.enum(['release_time', 'timestamp', 'version'], { error: 'must be release_time, timestamp or version' }),
    'release_time',
  ),
  direction: z._default(directionSchema, 'desc'),
  per_page: perPageSchema(DEFAULT_RELEASES_PER_PAGE),
  cursor: z.optional(z.string()),
})
export type ListReleasesQuery = z.infer<typeof listReleasesQuerySchema>

/** GET /projects/{id}/release_groups, as Bugsnag's clients call it. */
export const listReleaseGroupsQuerySchema = z.object({
  release_stage_name: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(1024))),
  /** true: only release groups with sessions in the last 24 hours. */
  top_only: z._default(queryBoolean, false),
  /** Every release group is visible: true and false list the same. */
  visible_only: z._default(queryBoolean, false),
  per_page: perPageSchema(DEFAULT_RELEASES_PER_PAGE),
  cursor: z.optional(z.string()),
})
export type ListReleaseGroupsQuery = z.infer<typeof listReleaseGroupsQuerySchema>

const optionalText = (max: number) =>
  z.pipe(
    z.nullish(z.string({ error: 'must be a string' }).check(z.maxLength(max, `must be at most ${max} characters`))),
    z.transform((v) => (v === undefined || v === null || v.trim() === '' ? null : v.trim())),
  )

/**
 * The body of POST /build as bugsnag-build-reporter and the Bugsnag CLI send it. Unknown
 * fields are ignored, as Bugsnag's build API does.
 */
export const buildReportSchema = z.object({
  apiKey: z.string({ error: "required: the project's API key" }),
  appVersion: z
    .string({ error: 'required: the version that was built' })
    .check(z.trim(), z.minLength(1, 'required: the version that was built'), z.maxLength(1024, 'must be at most 1024 characters')),
  releaseStage: optionalText(1024),
  builderName: optionalText(1024),
  buildTool: optionalText(256),
  appVersionCode: z.pipe(
    z.nullish(z.union([z.string(), z.number()])),
    z.transform((v) => (v === undefined || v === null || v === '' ? null : String(v))),
  ),
  appBundleVersion: optionalText(256),
  sourceControl: z.nullish(
    z.object(
      {
        provider: optionalText(64),
        repository: z.string({ error: 'required in sourceControl' }).check(z.minLength(1, 'must not be empty'), z.maxLength(2048)),
        revision: z.string({ error: 'required in sourceControl' }).check(z.minLength(1, 'must not be empty'), z.maxLength(256)),
      },
      { error: 'must be an object {provider, repository, revision}' },
    ),
  ),
  metadata: z.nullish(
    z
      .record(z.string().check(z.maxLength(256)), z.string({ error: 'values must be strings' }).check(z.maxLength(4096)), {
        error: 'must be an object of strings',
      })
      .check(z.refine((m) => Object.keys(m).length <= 100, 'at most 100 keys')),
  ),
})
export type BuildReport = z.infer<typeof buildReportSchema>
