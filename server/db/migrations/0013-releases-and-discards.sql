-- Releases: an app version in a release stage of a project, created by the first event or
-- session that carries it (the indexer, server/ingest/index/write-events.ts; session
-- ingestion, server/ingest/accept/sessions.ts) or by POST /build (server/releases/), which
-- also fills the build fields. docs/releases.md.
CREATE TABLE releases (
  id                 text PRIMARY KEY,
  project_id         text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  release_stage      text NOT NULL,
  app_version        text NOT NULL,
  -- When it was first seen (event or session received) or reported as built, whichever came first.
  release_time       timestamptz NOT NULL,
  -- 'event', 'session' or 'build_api': what created it.
  release_source     text NOT NULL,
  -- Filled by POST /build (the latest report wins); NULL until then.
  builder_name       text,
  build_tool         text,
  app_version_code   text,
  app_bundle_version text,
  source_control     jsonb,
  metadata           jsonb,
  build_reported_at  timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, release_stage, app_version)
);
-- Newest first per project (the releases list and page), by stage or not.
CREATE INDEX releases_project_time_idx ON releases (project_id, release_time DESC, id DESC);

-- The release an error was first seen in: the first event's release stage and app version.
ALTER TABLE errors ADD COLUMN first_release_stage text;
ALTER TABLE errors ADD COLUMN first_app_version text;
CREATE INDEX errors_first_release_idx ON errors (project_id, first_app_version, first_release_stage)
  WHERE first_app_version IS NOT NULL;

-- Discarded errors: their new events are counted here and not stored, until undiscarded.
ALTER TABLE errors ADD COLUMN discarded_at timestamptz;
ALTER TABLE errors ADD COLUMN discarded_events bigint NOT NULL DEFAULT 0;
-- An issue in a tracker linked to the error (the link_issue operation).
ALTER TABLE errors ADD COLUMN linked_issue_url text;

-- The release of the event that reopened a fixed error (reason 'event'): the release's regressions.
ALTER TABLE error_status_changes ADD COLUMN release_stage text;
ALTER TABLE error_status_changes ADD COLUMN app_version text;
