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

-- Rollups are folded from the events behind a watermark (server/rollups/fold.ts), about once a
-- second, instead of in every index transaction: a second of events adds to far fewer rollup
-- rows than each small batch did. Each event indexed from now on gets a seq; a project's events
-- above its watermark are not in its rollups yet. Events already stored are in them (no seq).
CREATE SEQUENCE events_seq;
ALTER TABLE events ADD COLUMN seq bigint;
ALTER TABLE events ALTER COLUMN seq SET DEFAULT nextval('events_seq');
CREATE INDEX events_project_seq_idx ON events (project_id, seq) WHERE seq IS NOT NULL;
CREATE TABLE rollup_watermarks (
  project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  seq        bigint NOT NULL
);
