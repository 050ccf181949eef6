-- Privacy deletions cut off by an upgrade. Before this version a deletion's batches left the
-- project-wide pivot rows alone and its finishing step queued them (error_id '') from the errors'
-- rows it rechecked; batches now take deleted events out of the project-wide rows themselves and
-- queue those rows, and the finishing step no longer does. For a deletion whose batches ran on the
-- earlier version, queue the project-wide row of every value still waiting on an error's row, so
-- the finishing step recomputes it from the errors' rows (docs/privacy.md): no count of a deleted
-- event, and no value only deleted events had, stays in a project-wide pivot.
INSERT INTO event_data_deletion_work (deletion_id, project_id, kind, error_id, field, value)
  SELECT DISTINCT w.deletion_id, w.project_id, 'pivot', '', w.field, w.value
  FROM event_data_deletion_work w JOIN event_data_deletions d ON d.id = w.deletion_id
  WHERE w.kind = 'pivot' AND w.error_id <> '' AND d.status = 'ACCEPTED'
ON CONFLICT DO NOTHING;
