-- Native crashes (server/native/, docs/native.md).

-- Symbol files uploaded for native modules: Breakpad .sym files (kind 'breakpad') and ELF shared
-- objects or their debug-only extracts (kind 'elf'), each turned once, at upload, into a SymCache
-- (server/symbolication/native/symcache.ts) that events are symbolicated with. Both kinds share
-- one key space, the Breakpad debug id (an ELF build id converts into one), so a .sym and a .so of
-- the same library serve the same frames. The upload as sent is kept too (gzip'd), so a newer
-- SymCache version can be built from it.
CREATE TABLE native_symbols (
  id              text PRIMARY KEY,
  project_id      text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('breakpad', 'elf')),
  -- 33 upper-case hex characters (GUID + age).
  debug_id        text NOT NULL,
  -- The GNU build id (lower-case hex) when known.
  code_id         text,
  os              text NOT NULL,
  arch            text NOT NULL,
  module_name     text NOT NULL,
  -- What the upload tool said about it (informational).
  details         jsonb NOT NULL DEFAULT '{}',
  project_root    text,
  has_symbols     boolean NOT NULL,
  has_line_info   boolean NOT NULL,
  has_inline_info boolean NOT NULL,
  has_cfi         boolean NOT NULL,
  -- Bytes as uploaded (before any gzip the client applied was undone: as received).
  size            bigint NOT NULL,
  symcache        bytea NOT NULL,
  original        bytea NOT NULL,
  uploaded_by     text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX native_symbols_key ON native_symbols (project_id, debug_id, kind);
CREATE INDEX native_symbols_code_id_idx ON native_symbols (project_id, code_id) WHERE code_id IS NOT NULL;
CREATE INDEX native_symbols_project_created_idx ON native_symbols (project_id, created_at);

-- Minidumps received (POST /minidump), kept for download from their event's page. event_id is
-- drawn when the dump is accepted, before its event is indexed (so no foreign key); deleting
-- events deletes their dumps (retention, privacy, error and project deletion).
CREATE TABLE minidumps (
  id         text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_id   text NOT NULL,
  size       bigint NOT NULL,
  gzipped    bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX minidumps_event_idx ON minidumps (event_id);

-- Whatever deletes events (retention, privacy deletions, deleting an event, an error or a
-- project) deletes their dumps: one statement per deleting statement, nothing when no dump is held.
CREATE FUNCTION delete_minidumps_of_deleted_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM minidumps) THEN
    DELETE FROM minidumps m USING gone_events g WHERE m.event_id = g.id;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_delete_minidumps AFTER DELETE ON events
  REFERENCING OLD TABLE AS gone_events FOR EACH STATEMENT EXECUTE FUNCTION delete_minidumps_of_deleted_events();
