-- Email alerts (server/notifications/, docs/notifications.md).

-- What each person is emailed about, per project. No row: the defaults
-- (contract/notifications.ts DEFAULT_NOTIFICATION_KINDS).
CREATE TABLE notification_settings (
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kinds      text[] NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, project_id)
);
CREATE INDEX notification_settings_project_idx ON notification_settings (project_id);

-- Every alert decided for a person: emailed at once (held false), or, beyond the per-hour limit,
-- held for the next digest (held true; digested_at once a digest carried it). The emailed ones are
-- the rate limit's memory. Rows older than two days that no digest waits for are removed.
CREATE TABLE alert_emails (
  id          text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  error_id    text REFERENCES errors (id) ON DELETE CASCADE,
  kind        text NOT NULL,
  -- One line for the digest: "New error: TypeError: x is undefined".
  summary     text NOT NULL,
  held        boolean NOT NULL,
  created_at  timestamptz NOT NULL,
  digested_at timestamptz
);
CREATE INDEX alert_emails_user_idx ON alert_emails (user_id, created_at);
CREATE INDEX alert_emails_error_idx ON alert_emails (error_id);
CREATE INDEX alert_emails_project_idx ON alert_emails (project_id);

-- The hour each spiking error was last alerted on: one alert per error per hour.
CREATE TABLE error_spike_alerts (
  error_id text PRIMARY KEY REFERENCES errors (id) ON DELETE CASCADE,
  hour     timestamptz NOT NULL
);

-- The days whose digest went out: once a day, however many processes.
CREATE TABLE digest_days (
  day     date PRIMARY KEY,
  sent_at timestamptz NOT NULL
);

-- Secrets this server makes for itself on first use (the key that signs unsubscribe links).
CREATE TABLE server_keys (
  name text PRIMARY KEY,
  key  text NOT NULL
);
