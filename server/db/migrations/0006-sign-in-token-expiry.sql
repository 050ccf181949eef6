-- The tokens the dashboard's sign-in issues expire after a while without use (server/auth/tokens.ts);
-- personal tokens made for scripts and integrations do not. `kind` tells them apart.
ALTER TABLE auth_tokens ADD COLUMN kind text NOT NULL DEFAULT 'personal' CHECK (kind IN ('personal', 'sign_in'));
-- Tokens from sign-ins before this column: known by the label sign-in gave them
-- ("Dashboard sign-in" or "Dashboard sign-in · Chrome on Linux").
UPDATE auth_tokens SET kind = 'sign_in' WHERE description = 'Dashboard sign-in' OR description LIKE 'Dashboard sign-in · %';
