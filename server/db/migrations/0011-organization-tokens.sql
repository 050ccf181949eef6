-- Organization API tokens (server/organization-tokens/): credentials of an organization rather than
-- of a person, made by its admins for automation and read by the legacy v1 API. Only the token's
-- SHA-256 hash is kept; revoking sets revoked_at, the row stays for the record.
CREATE TABLE organization_tokens (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  token_hash      text NOT NULL UNIQUE,
  name            text NOT NULL,
  created_by      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_used_at    timestamptz,
  revoked_at      timestamptz
);
CREATE INDEX organization_tokens_organization_idx ON organization_tokens (organization_id, created_at);
