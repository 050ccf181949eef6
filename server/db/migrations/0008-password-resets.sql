-- "Forgot password" links (server/auth/password-reset.ts): only the token's hash is kept; a link
-- works once (used_at) and until expires_at. Setting a password through one uses up the account's
-- other links too.
CREATE TABLE password_resets (
  id         text PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id);
