-- Accepted events waiting to be indexed. POST /notify answers 200 once its events are
-- committed here (one small insert per group-commit batch); the ingest indexer then moves
-- them into errors, events, event_payloads and the rollups in large batches, which costs a
-- fraction per event of doing that work for every small batch (docs/architecture.md).
CREATE TABLE ingest_queue (
  seq         bigserial PRIMARY KEY,
  event_id    text NOT NULL,
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  received_at timestamptz NOT NULL,
  -- The event's columns, grouping and user key, as the indexer writes them.
  event       jsonb NOT NULL,
  -- The full normalized event as UTF-8 JSON (compressed by the database): moved to
  -- event_payloads as it is.
  payload     bytea NOT NULL,
  -- Set when indexing this event alone failed on its data; such rows are kept, not retried.
  failed_at   timestamptz,
  failure     text
);
CREATE INDEX ingest_queue_project_idx ON ingest_queue (project_id);
