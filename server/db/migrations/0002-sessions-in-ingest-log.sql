-- POST /sessions goes through the accepted-event log as POST /notify does (docs/ingestion.md):
-- a row says which of the two it is.
ALTER TABLE ingest_log ADD COLUMN kind text NOT NULL DEFAULT 'notify' CHECK (kind IN ('notify', 'sessions'));

-- One journal remains, the embedded database's, read by its only process: nothing waits for it.
ALTER TABLE ingest_journals DROP COLUMN caught_up_at, DROP COLUMN location;
