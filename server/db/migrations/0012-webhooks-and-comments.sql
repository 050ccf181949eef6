-- Outgoing webhooks (server/webhooks/, docs/webhooks.md) and the comments they report on.

-- One row per configured webhook of a project. The secret signs every request
-- (X-Errata-Signature); it is kept in clear because signing needs it, and the API shows it
-- only in the answer that creates the webhook.
CREATE TABLE webhooks (
  id              text PRIMARY KEY,
  project_id      text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url             text NOT NULL,
  triggers        text[] NOT NULL,
  -- Per-trigger settings ({"errorEventFrequency": {...}, "projectSpiking": {...}}).
  settings        jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Filters in the errors list's syntax, for the triggers that take them.
  filters         jsonb NOT NULL DEFAULT '{}'::jsonb,
  enabled         boolean NOT NULL DEFAULT true,
  secret          text NOT NULL,
  -- Since when every delivery has failed (NULL once one succeeds); past the documented
  -- number of days the webhook is disabled with disabled_reason = 'failing'.
  failing_since   timestamptz,
  disabled_reason text,
  created_by      text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
-- The index step reads the enabled webhooks of a batch's projects once per batch.
CREATE INDEX webhooks_project_idx ON webhooks (project_id) WHERE enabled;

-- One row per notification: what fired (trigger and its details, the error and event it is
-- about), the body once built (kept, so retries and redeliveries send the same document), and
-- how its delivery went. A job (kind webhook.deliver) carries it to the target. The body holds
-- event data: a deleted event or error (a privacy deletion among them) takes its deliveries along.
CREATE TABLE webhook_deliveries (
  id           text PRIMARY KEY,
  webhook_id   text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  project_id   text NOT NULL,
  trigger      text NOT NULL,
  error_id     text REFERENCES errors (id) ON DELETE CASCADE,
  event_id     text REFERENCES events (id) ON DELETE CASCADE,
  details      jsonb NOT NULL DEFAULT '{}'::jsonb,
  body         text,
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts     integer NOT NULL DEFAULT 0,
  last_status  integer,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
-- For the cascades above: deleting events (in batches) finds their deliveries by index.
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX webhook_deliveries_error_idx ON webhook_deliveries (error_id) WHERE error_id IS NOT NULL;

-- Each attempt of a delivery: the answer's status (NULL when none came), how long it took,
-- and the start of the answer's body or the network error.
CREATE TABLE webhook_attempts (
  id               text PRIMARY KEY,
  delivery_id      text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at     timestamptz NOT NULL,
  status           integer,
  duration_ms      integer NOT NULL,
  error            text,
  response_excerpt text
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at);

-- Trigger bookkeeping per webhook and key (an error for errorEventFrequency, the project for
-- projectSpiking): the current window and whether it has notified.
CREATE TABLE webhook_trigger_state (
  webhook_id      text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  trigger         text NOT NULL,
  subject_id      text NOT NULL,
  window_start    timestamptz NOT NULL,
  events          bigint NOT NULL DEFAULT 0,
  notified_at     timestamptz,
  PRIMARY KEY (webhook_id, trigger, subject_id)
);

-- Comments on errors.
CREATE TABLE comments (
  id         text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  error_id   text NOT NULL REFERENCES errors (id) ON DELETE CASCADE,
  author_id  text REFERENCES users (id) ON DELETE SET NULL,
  message    text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_error_idx ON comments (error_id, created_at, id);
