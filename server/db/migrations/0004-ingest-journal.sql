-- How far the indexer has read the embedded database's ingest journal (files beside the
-- database, server/ingest/ingest-journal.ts). It moves in the same transaction that indexes
-- the events it passes, so each journaled event is indexed exactly once. PostgreSQL has no
-- journal (accepted events wait in ingest_queue there) and keeps the starting row.
CREATE TABLE ingest_journal (
  id          smallint PRIMARY KEY CHECK (id = 1),
  segment     bigint NOT NULL,
  byte_offset bigint NOT NULL
);
INSERT INTO ingest_journal (id, segment, byte_offset) VALUES (1, 0, 0);
