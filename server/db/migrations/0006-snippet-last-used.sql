-- Code snippets no stored event uses are removed (docs/operations.md, "Retention"): a snippet
-- says when an event that uses it was last received, within a day. Ingestion sets it to the
-- event's received time in the transaction that stores the event, rewriting a row only when
-- that moves it by more than 12 hours (server/events/stored-frames.ts), so for every stored
-- event a snippet it uses has last_used_at ≥ its received_at − 1 day. After a retention sweep or
-- a privacy deletion, under the project's write lock, the project's snippets older than its
-- oldest event less a day go (all of them when it has no events left).
-- Rows written before say now, not when they were created: a row was written once, for the first
-- event that used it, and any event since may use it too. They go once the events received
-- before this migration have gone.
ALTER TABLE source_code_snippets ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX source_code_snippets_last_used_idx ON source_code_snippets (project_id, last_used_at);

-- Counts the removals, so that a process which remembers which snippets exist (to write nothing
-- for them) knows when to check again: read by ingestion with the project's write lock held.
ALTER TABLE projects ADD COLUMN code_snippet_removals bigint NOT NULL DEFAULT 0;
