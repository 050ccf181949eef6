-- The reopen_rules an error had before a status change, so the change can be reverted
-- exactly (the revert_status operation, docs/errors-workflow.md): a snooze comes back with
-- its rule and bookkeeping as they were, not restarted. NULL for changes recorded before.
ALTER TABLE error_status_changes ADD COLUMN from_reopen_rules jsonb;
