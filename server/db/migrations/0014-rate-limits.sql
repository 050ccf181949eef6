-- Per-project rate limiting (docs/ingestion.md, "Rate limiting"): an optional event quota per
-- minute and per UTC day, set by admins; NULL (the default) is no limit.
ALTER TABLE projects ADD COLUMN events_per_minute integer CHECK (events_per_minute > 0);
ALTER TABLE projects ADD COLUMN events_per_day integer CHECK (events_per_day > 0);

-- The events each window of a rate-limited project has counted (received, not of discarded
-- errors) and how many of them sampling dropped: one row per project, span ('minute' or 'day')
-- and window start, updated in place by the index step in the transaction that indexes the
-- events, so every Errata process on one database counts into the same rows, exactly once.
-- Rows older than two days are deleted by the index step.
CREATE TABLE project_event_windows (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  span       text NOT NULL CHECK (span IN ('minute', 'day')),
  starts_at  timestamptz NOT NULL,
  events     bigint NOT NULL DEFAULT 0,
  dropped    bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, span, starts_at)
);

-- What the rate-limit webhook triggers remember, per project: the received time of the last
-- event sampling dropped (a sampling episode ends after an hour without one) and when
-- projectApproachingRateLimit last fired (at most once per 2 hours).
CREATE TABLE project_rate_limit_state (
  project_id               text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  last_dropped_at          timestamptz,
  sampling_started_at      timestamptz,
  approaching_notified_at  timestamptz
);
