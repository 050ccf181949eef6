-- Merging errors (docs/errors-workflow.md#merging): a merged error's row stays, with its
-- comments and history, marked with the error it is merged into and left out of every list;
-- its events move to that error. Its grouping hash goes on naming it, so the indexer sends later
-- events of that hash to the error it is merged into (one lookup per batch, by errors_project_hash_key).
ALTER TABLE errors ADD COLUMN merged_into_id text REFERENCES errors (id) ON DELETE CASCADE;
CREATE INDEX errors_merged_into_idx ON errors (merged_into_id) WHERE merged_into_id IS NOT NULL;
-- Lists and status counts leave merged errors out: the status index covers only the others, so
-- counting stays an index-only scan.
CREATE INDEX errors_project_status_live_idx ON errors (project_id, status, id) WHERE merged_into_id IS NULL;
DROP INDEX errors_project_status_idx;

-- An event whose own group (its grouping hash) is merged into another error: that group's error,
-- so unmerging puts it back. NULL for every other event.
ALTER TABLE events ADD COLUMN merged_from_id text;
CREATE INDEX events_merged_idx ON events (error_id, merged_from_id) WHERE merged_from_id IS NOT NULL;

-- Merges and unmerges, for both errors' histories: one row per merged error.
CREATE TABLE error_merges (
  id              text PRIMARY KEY,
  project_id      text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('merge', 'unmerge')),
  -- The error the other was merged into (or taken out of).
  error_id        text NOT NULL REFERENCES errors (id) ON DELETE CASCADE,
  merged_error_id text NOT NULL REFERENCES errors (id) ON DELETE CASCADE,
  actor_id        text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX error_merges_error_idx ON error_merges (error_id, created_at);
CREATE INDEX error_merges_merged_idx ON error_merges (merged_error_id, created_at);
