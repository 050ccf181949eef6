import type { Collaborator } from '../../contract/collaborators.ts'
import type { ErrorGroup } from '../../contract/errors.ts'
import type { ErrorEvent, EventThread, StackFrame } from '../../contract/events.ts'
import type { Organization } from '../../contract/organizations.ts'
import type { Project } from '../../contract/projects.ts'
import type { RateLimit } from '../../contract/rate-limits.ts'
import type { ProjectStorage, ServerStorage } from '../../contract/storage.ts'

const origin = 'http://localhost:3000'

/** The signed-in user of page tests (GET /api/user). */
export const signedInUser = { id: 'u1', name: 'Ada', email: 'ada@example.com', created_at: '2026-01-01T00:00:00Z' }

/** Another collaborator of org1 (u2), e.g. someone to assign errors to. */
export const collaborator = (overrides: Partial<Collaborator> = {}): Collaborator => ({
  id: 'u2',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  is_admin: false,
  project_ids: null,
  pending_invitation: false,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
})

/**
 * What the page of error e1 of project p1 reads, for mockApi: add (or replace) the events, pivots
 * and whatever the test is about.
 */
export const errorPageRoutes = () => ({
  'GET /api/user': signedInUser,
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': organization(),
  'GET /api/organizations/org1/collaborators': [],
  'GET /api/projects/p1/collaborators': [],
  'GET /api/projects/p1/errors/e1': errorGroup(),
  'GET /api/projects/p1/errors/e1/latest_event': event(),
  'GET /api/projects/p1/errors/e1/status_changes': [],
  'GET /api/projects/p1/errors/e1/trend': [],
})

/** The signed-in user as a collaborator of org1: an admin or a member. */
export const signedInCollaborator = (is_admin: boolean): Collaborator => ({
  id: 'u1',
  name: 'Ada',
  email: 'ada@example.com',
  is_admin,
  project_ids: null,
  pending_invitation: false,
  created_at: '2026-01-01T00:00:00.000Z',
})

export const organization = (overrides: Partial<Organization> = {}): Organization => ({
  id: 'org1',
  name: 'Acme Inc.',
  slug: 'acme-inc',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
})

export const project = (overrides: Partial<Project> = {}): Project => ({
  id: 'p1',
  organization_id: 'org1',
  name: 'checkout-api',
  slug: 'checkout-api',
  type: 'node',
  api_key: '0123456789abcdef0123456789abcdef',
  collaborators_count: 1,
  open_error_count: 0,
  release_stages: [],
  event_retention_days: null,
  effective_event_retention_days: 90,
  default_event_retention_days: 90,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  html_url: `${origin}/projects/p1/errors`,
  ...overrides,
})

export const rateLimit = (overrides: Partial<RateLimit> = {}): RateLimit => ({
  events_per_minute: null,
  events_per_day: null,
  events_today: 0,
  events_last_minute: 0,
  events_last_hour: 0,
  busiest_minute_24h: 0,
  // The 24 hours before 2026-01-01T12:00Z, none with events.
  hours: Array.from({ length: 24 }, (_, i) => ({ hour: new Date(Date.UTC(2025, 11, 31, 13 + i)).toISOString(), events: 0, dropped: 0 })),
  dropped_last_24h: 0,
  last_dropped_at: null,
  ...overrides,
})

export const errorGroup = (overrides: Partial<ErrorGroup> = {}): ErrorGroup => ({
  merged_into_id: null,
  id: 'e1',
  project_id: 'p1',
  error_class: 'TypeError',
  message: "Cannot read properties of undefined (reading 'total')",
  context: 'POST /checkout',
  severity: 'error',
  severity_override: null,
  unhandled: true,
  status: 'open',
  assigned_collaborator_id: null,
  reopen_rules: null,
  first_seen: '2026-11-20T10:00:00.000Z',
  last_seen: '2026-11-22T10:00:00.000Z',
  events: 1234,
  users: 56,
  release_stages: ['production'],
  app_versions: ['1.2.3'],
  grouping_reason: 'in_project_frame',
  first_release: { release_stage: 'production', app_version: '1.2.3' },
  discarded: false,
  discarded_at: null,
  discarded_events: 0,
  linked_issues: [],
  url: `${origin}/api/projects/p1/errors/e1`,
  html_url: `${origin}/projects/p1/errors/e1`,
  ...overrides,
})

export const frame = (overrides: Partial<StackFrame> = {}): StackFrame => ({
  line: 10,
  column: 5,
  file: 'node_modules/express/lib/router.js',
  method: 'handle',
  in_project: false,
  code: null,
  ...overrides,
})

export const thread = (overrides: Partial<EventThread> = {}): EventThread => ({
  id: '1',
  name: 'main',
  type: 'android',
  error_reporting_thread: false,
  state: 'RUNNABLE',
  stacktrace: [],
  ...overrides,
})

export const event = (overrides: Partial<ErrorEvent> = {}): ErrorEvent => ({
  id: 'ev1',
  url: `${origin}/api/projects/p1/events/ev1`,
  html_url: `${origin}/projects/p1/errors/e1/events/ev1`,
  project_id: 'p1',
  error_id: 'e1',
  received_at: '2026-11-22T10:00:00.000Z',
  severity: 'error',
  unhandled: true,
  severity_reason: 'unhandledException',
  context: 'POST /checkout',
  grouping_hash: null,
  app_version: '1.2.3',
  release_stage: 'production',
  os_version: '6.1',
  user_id: 'user-42',
  exceptions: [],
  meta_data: {},
  user: { id: 'user-42', email: 'ada@example.com', name: 'Ada Lovelace' },
  app: {},
  device: {},
  request: {},
  breadcrumbs: [],
  feature_flags: [],
  threads: [],
  session: null,
  notifier: null,
  ...overrides,
})

export const projectStorage = (overrides: Partial<ProjectStorage> = {}): ProjectStorage => ({
  measured_at: new Date().toISOString(),
  total_bytes: 889_212_345 + 4_123_456 + 12_345,
  events: { count: 900_000, bytes: 133_212_345 },
  payloads: { count: 900_000, bytes: 756_000_000 },
  sampled_events: 1000,
  source_maps: { count: 3, bytes: 4_123_456 },
  privacy_exports: { count: 1, bytes: 12_345 },
  ...overrides,
})

/** This server's storage: `low` below the threshold (2 MiB free of 1 GiB kept), otherwise 50 GiB free. */
export const serverStorage = ({ low = false, postgres = false }: { low?: boolean; postgres?: boolean } = {}): ServerStorage => ({
  database: {
    engine: postgres ? 'postgres' : 'pglite',
    bytes: 1_377_288_719,
    data_dir_bytes: postgres ? null : 2_466_557_952,
    measured_at: new Date().toISOString(),
  },
  disk: postgres
    ? null
    : {
        free_bytes: low ? 2 * 1024 ** 2 : 50 * 1024 ** 3,
        total_bytes: 100 * 1024 ** 3,
        min_free_bytes: 1024 ** 3,
        low,
        checked_at: new Date().toISOString(),
      },
})
