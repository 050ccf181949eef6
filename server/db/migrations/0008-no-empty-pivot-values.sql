-- Pivoted event columns hold no empty strings any more: "" is no value, as NULL is
-- (server/ingest/process/normalize.ts, pivotColumn), so pivots never list a value no filter can select.
UPDATE events SET
  context      = NULLIF(context, ''),
  app_version  = NULLIF(app_version, ''),
  os_name      = NULLIF(os_name, ''),
  os_version   = NULLIF(os_version, ''),
  browser_name = NULLIF(browser_name, ''),
  device_model = NULLIF(device_model, ''),
  user_id      = NULLIF(user_id, ''),
  request_url  = NULLIF(request_url, '')
WHERE '' IN (context, app_version, os_name, os_version, browser_name, device_model, user_id, request_url);
DELETE FROM pivot_counts WHERE value = '';

-- Events set aside because a pivoted value was too long for an index entry ("index row size
-- … exceeds … maximum"): the indexer now cuts those values, so they index when retried.
UPDATE ingest_queue SET failed_at = NULL, failure = NULL
WHERE failed_at IS NOT NULL AND failure LIKE 'index row size%';
