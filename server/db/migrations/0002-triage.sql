-- Triage: status history, severity override, collaborator project access, invitations,
-- and the rollups that keep trends, pivots and filtered error lists fast at millions of events.

-- A severity set by a person wins over the one the newest event carries.
ALTER TABLE errors ADD COLUMN severity_override text;
CREATE INDEX errors_project_assigned_idx ON errors (project_id, assigned_collaborator_id);
-- Status filters count thousands of errors: with the id in the index that is an index-only scan.
DROP INDEX errors_project_status_idx;
CREATE INDEX errors_project_status_idx ON errors (project_id, status, id);

-- Every status change, manual (actor_id set) or automatic (actor_id null: an event reopened it).
CREATE TABLE error_status_changes (
  id          text PRIMARY KEY,
  error_id    text NOT NULL REFERENCES errors (id) ON DELETE CASCADE,
  actor_id    text REFERENCES users (id) ON DELETE SET NULL,
  from_status text NOT NULL,
  to_status   text NOT NULL,
  -- Why: 'operation' (someone changed it), 'event' (an event on a fixed error), 'snooze_rule'.
  reason      text NOT NULL,
  reopen_rules jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX error_status_changes_error_idx ON error_status_changes (error_id, created_at);

-- NULL: every project of the organization; otherwise only these (admins always see all).
ALTER TABLE collaborators ADD COLUMN project_ids text[];

-- Invitations for people without an account; accepted through a link carrying the token.
CREATE TABLE invitations (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email           text NOT NULL,
  is_admin        boolean NOT NULL DEFAULT false,
  project_ids     text[],
  token_hash      text NOT NULL,
  invited_by      text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX invitations_token_key ON invitations (token_hash);
CREATE UNIQUE INDEX invitations_org_email_key ON invitations (organization_id, lower(email));

-- Events per error per hour: error trends, sparklines and filtered project trends.
CREATE TABLE error_hourly_counts (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  error_id   text NOT NULL REFERENCES errors (id) ON DELETE CASCADE,
  hour       timestamptz NOT NULL,
  events     bigint NOT NULL,
  PRIMARY KEY (error_id, hour)
);
CREATE INDEX error_hourly_counts_project_idx ON error_hourly_counts (project_id, hour);

-- Events per project, current error status and hour: the project trend, unfiltered or by
-- status (the dashboard's default view is open errors), reads ~24 rows a day per status.
-- A status change moves the error's hourly counts from its old status to its new one.
CREATE TABLE project_hourly_counts (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  status     text NOT NULL,
  hour       timestamptz NOT NULL,
  events     bigint NOT NULL,
  PRIMARY KEY (project_id, status, hour)
);

-- Events per value of each pivot field, per error and (error_id = '') per project:
-- unfiltered pivots and single-field error filters read these instead of scanning events.
CREATE TABLE pivot_counts (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  error_id   text NOT NULL,
  field      text NOT NULL,
  value      text NOT NULL,
  events     bigint NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen  timestamptz NOT NULL,
  -- For user.id: the newest user.email and user.name seen with it.
  details    jsonb,
  PRIMARY KEY (project_id, error_id, field, value)
);
CREATE INDEX pivot_counts_top_idx ON pivot_counts (project_id, error_id, field, events DESC, value);
-- last_seen included: "seen since T with value V" is then an index-only scan.
CREATE INDEX pivot_counts_value_idx ON pivot_counts (project_id, field, value, error_id) INCLUDE (last_seen);
