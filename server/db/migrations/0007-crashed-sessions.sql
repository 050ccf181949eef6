-- Sessions that crashed: one row per session id an unhandled event named (written by the
-- indexer with the events, server/ingest/write-events.ts), attributed to the minute the
-- session started and to the event's release stage and app version, as session_counts
-- counts the sessions started. The stability endpoint compares the two per release over a
-- period (server/stability/stability.service.ts).
CREATE TABLE crashed_sessions (
  project_id     text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  session_id     text NOT NULL,
  started_minute timestamptz NOT NULL,
  release_stage  text NOT NULL,
  app_version    text NOT NULL DEFAULT '',
  PRIMARY KEY (project_id, session_id)
);
-- A project's crashed sessions over a period, grouped by release.
CREATE INDEX crashed_sessions_period_idx ON crashed_sessions (project_id, started_minute);
