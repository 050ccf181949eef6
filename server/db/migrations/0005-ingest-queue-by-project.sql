-- The PostgreSQL indexer takes one project's queued events at a time, oldest first (so that
-- several processes index different projects side by side; server/ingest/ingest-indexer.ts):
-- this index serves "this project's next events" in order.
DROP INDEX ingest_queue_project_idx;
CREATE INDEX ingest_queue_project_seq_idx ON ingest_queue (project_id, seq);
