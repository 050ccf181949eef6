-- Durable background jobs (server/jobs/) and the privacy requests that use them first
-- (server/privacy/): event data retrievals (GDPR / CCPA access requests) and deletions.

-- One row per job. A worker claims a due job with FOR UPDATE SKIP LOCKED and holds a lease
-- (locked_until), renewed while it runs; a job whose lease ran out (its process died) is claimed
-- again. lock_token names the claim, so a worker that lost its lease cannot finish or fail the
-- job any more. Retries wait run_at with backoff; attempts and last_error say how it went.
CREATE TABLE jobs (
  id           text PRIMARY KEY,
  kind         text NOT NULL,
  -- At most one job per (kind, key) while it is not finished: enqueueing twice is a no-op.
  key          text,
  payload      jsonb NOT NULL DEFAULT '{}'::jsonb,
  state        text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'completed', 'failed')),
  run_at       timestamptz NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  last_error   text,
  lock_token   text,
  locked_until timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE UNIQUE INDEX jobs_kind_key_key ON jobs (kind, key) WHERE key IS NOT NULL AND state IN ('queued', 'running');
CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE state = 'queued';
CREATE INDEX jobs_lease_idx ON jobs (locked_until) WHERE state = 'running';
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE state IN ('completed', 'failed');

-- Retrievals: PREPARING → COMPLETED (or FAILED once its job gives up). The output file is kept
-- by file_key (a file in DATA_DIR/event-data on the embedded database, rows of event_data_files
-- on PostgreSQL) until expires_at, or until a later deletion in its scope removes it.
CREATE TABLE event_data_requests (
  id                  text PRIMARY KEY,
  organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- NULL: every project of the organization.
  project_id          text REFERENCES projects (id) ON DELETE CASCADE,
  status              text NOT NULL CHECK (status IN ('PREPARING', 'COMPLETED', 'FAILED')),
  report_type         text NOT NULL,
  filters             jsonb NOT NULL,
  all_events          boolean NOT NULL DEFAULT false,
  total               bigint,
  created_by          text REFERENCES users (id) ON DELETE SET NULL,
  created_by_email    text NOT NULL,
  created_by_name     text NOT NULL,
  created_at          timestamptz NOT NULL,
  completed_at        timestamptz,
  expires_at          timestamptz,
  -- When the export that produced the file began: a deletion completed after it voids the file.
  export_started_at   timestamptz,
  file_key            text,
  file_bytes          bigint,
  file_removed_at     timestamptz,
  -- 'expired' or 'deleted' (a later deletion in its scope).
  file_removed_reason text,
  failure             text,
  job_id              text
);
CREATE INDEX event_data_requests_org_idx ON event_data_requests (organization_id, created_at, id);
CREATE INDEX event_data_requests_project_idx ON event_data_requests (project_id, created_at, id);

-- Retrieval output on PostgreSQL, where any process may serve the download: the gzip'd JSON
-- lines file in pieces of about 1 MiB. Already compressed, so not compressed again (EXTERNAL).
CREATE TABLE event_data_files (
  request_id text NOT NULL REFERENCES event_data_requests (id) ON DELETE CASCADE,
  file_key   text NOT NULL,
  seq        integer NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (file_key, seq)
);
ALTER TABLE event_data_files ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX event_data_files_request_idx ON event_data_files (request_id);

-- Deletions: PREPARING → AWAITING_CONFIRMATION → (confirm) ACCEPTED → COMPLETED; with
-- skip_confirmation PREPARING → ACCEPTED → COMPLETED; FAILED once a job gives up.
CREATE TABLE event_data_deletions (
  id                 text PRIMARY KEY,
  organization_id    text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id         text REFERENCES projects (id) ON DELETE CASCADE,
  status             text NOT NULL CHECK (status IN ('PREPARING', 'AWAITING_CONFIRMATION', 'ACCEPTED', 'COMPLETED', 'FAILED')),
  filters            jsonb NOT NULL,
  all_events         boolean NOT NULL DEFAULT false,
  skip_confirmation  boolean NOT NULL DEFAULT false,
  total              bigint,
  -- Events deleted so far, raised in the transaction of each batch (exact across restarts).
  deleted_events     bigint NOT NULL DEFAULT 0,
  created_by         text REFERENCES users (id) ON DELETE SET NULL,
  created_by_email   text NOT NULL,
  created_by_name    text NOT NULL,
  created_at         timestamptz NOT NULL,
  completed_at       timestamptz,
  confirmed_by       text REFERENCES users (id) ON DELETE SET NULL,
  confirmed_by_email text,
  confirmed_by_name  text,
  confirmed_at       timestamptz,
  -- Set once when deleting starts: events received before it are deleted, later ones kept.
  deleting_before    timestamptz,
  failure            text,
  job_id             text
);
CREATE INDEX event_data_deletions_org_idx ON event_data_deletions (organization_id, created_at, id);
CREATE INDEX event_data_deletions_project_idx ON event_data_deletions (project_id, created_at, id);

-- What a running deletion still has to bring up to date once its events are gone, written in the
-- transaction of each batch and cleared as it is done: errors (counters, first / last seen, users,
-- empty ones removed), users affected per error ('user'), pivot values ('pivot': first / last seen
-- and the user details of project-wide rows) and crashed sessions ('session').
CREATE TABLE event_data_deletion_work (
  deletion_id text NOT NULL REFERENCES event_data_deletions (id) ON DELETE CASCADE,
  project_id  text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('error', 'user', 'pivot', 'session')),
  error_id    text NOT NULL DEFAULT '',
  field       text NOT NULL DEFAULT '',
  value       text NOT NULL DEFAULT '',
  PRIMARY KEY (deletion_id, project_id, kind, error_id, field, value)
);
