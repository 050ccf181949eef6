-- Where a deletion's passes over the events stand (server/privacy/privacy.jobs.ts): written with
-- each batch, so that a job taken up again after a restart goes on from there instead of reading
-- the project's events from the start. Null: nothing deleted yet (and deletions under way at the
-- upgrade, which start their passes again, as before).
ALTER TABLE event_data_deletions ADD COLUMN progress jsonb;
