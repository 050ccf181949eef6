-- Batches of accepted requests being processed (server/ingest/process/attempts.ts): a row is
-- written before a batch is processed and deleted after, so one left behind by a process that
-- is no longer running marks a batch whose processing ended that process (out of memory, a
-- crash). The batch is then processed one request at a time, and a request that ends a process
-- twice while processed alone is set aside, so that it cannot stop every restart again.
CREATE TABLE ingest_attempts (
  -- The first event id of the batch's first request.
  request_key text PRIMARY KEY,
  batch_size integer NOT NULL,
  -- The processing process's key (server/ingest/process/attempts.ts).
  owner bigint NOT NULL,
  -- How many processes ended while processing the request alone.
  crashes integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now()
);
