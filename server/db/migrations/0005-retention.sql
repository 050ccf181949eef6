-- Event retention (docs/operations.md, "Retention"): events received longer ago than a project's
-- retention are deleted by a recurring job (server/retention/). NULL: the server's default
-- (ERRATA_RETENTION_DAYS).
ALTER TABLE projects ADD COLUMN event_retention_days integer
  CHECK (event_retention_days BETWEEN 1 AND 3650);

-- The retention job reuses the privacy deletion's work list (server/privacy/delete-events.ts)
-- under a deletion id of its own that names no privacy deletion: the list is tied to its project
-- instead (a privacy deletion clears its rows itself when it completes).
ALTER TABLE event_data_deletion_work DROP CONSTRAINT event_data_deletion_work_deletion_id_fkey;
DELETE FROM event_data_deletion_work w WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = w.project_id);
ALTER TABLE event_data_deletion_work
  ADD CONSTRAINT event_data_deletion_work_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;
