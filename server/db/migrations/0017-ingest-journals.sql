-- One row per ingest journal (server/ingest/log/journal-source.ts): how far its indexer has
-- read, moved in the transaction that indexes what it passed. The embedded database has one
-- journal ('embedded'); on PostgreSQL with ERRATA_INGEST_LOG=journal every Errata process has
-- its own (its id is in the journal's directory), and each says in `caught_up_at` until when
-- everything appended to it is indexed, which a privacy deletion waits for (docs/ingestion.md).
CREATE TABLE ingest_journals (
  journal_id   text PRIMARY KEY,
  segment      bigint NOT NULL,
  byte_offset  bigint NOT NULL,
  -- Every request appended to this journal before this moment is indexed.
  caught_up_at timestamptz NOT NULL DEFAULT now(),
  -- Where the journal is (host and directory), for the operator when a deletion waits for it.
  location     text NOT NULL DEFAULT ''
);
-- The embedded database's position, if its journal was ever read (PostgreSQL's starting row never was).
INSERT INTO ingest_journals (journal_id, segment, byte_offset)
  SELECT 'embedded', segment, byte_offset FROM ingest_journal WHERE id = 1 AND (segment > 0 OR byte_offset > 0);
DROP TABLE ingest_journal;
