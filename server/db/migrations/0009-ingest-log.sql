-- The accepted-event log on PostgreSQL (the embedded database keeps it in the ingest journal,
-- files beside the database): one row per accepted POST /notify, its body as received. The
-- indexer normalizes it and deletes the row in the transaction that indexes its events, so
-- the event payload is written once, normalized, into event_payloads (ingest_queue held a
-- normalized copy that was then copied again). Requests whose events cannot be processed are
-- kept here with failed_at, on both engines.
CREATE TABLE ingest_log (
  seq         bigserial PRIMARY KEY,
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  received_at timestamptz NOT NULL,
  -- One id per event of the payload, made when it was accepted: a replay makes the same events.
  event_ids   text[] NOT NULL,
  user_agent  text,
  -- The payload's JSON text as received (decompressed); compressed by the database (TOAST).
  body        text NOT NULL,
  failed_at   timestamptz,
  failure     text
);
CREATE INDEX ingest_log_project_seq_idx ON ingest_log (project_id, seq);
