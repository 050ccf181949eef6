-- JavaScript source maps uploaded to POST /sourcemap and POST /react-native-source-map
-- (server/source-maps/), read by the symbolicator (server/symbolication/javascript.ts). The
-- files live in the database, so every Errata process sharing a PostgreSQL database sees them.
CREATE TABLE source_maps (
  id               text PRIMARY KEY,
  project_id       text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- 'js' (browser and Node: matched by minified_url) or 'react_native' (matched by platform and versions).
  kind             text NOT NULL,
  -- The minifiedUrl field as sent ('*' wildcards kept); '' for React Native.
  minified_url     text NOT NULL DEFAULT '',
  -- '' when the field was omitted (rule 3: then it applies to events without an app version).
  app_version      text NOT NULL DEFAULT '',
  code_bundle_id   text NOT NULL DEFAULT '',
  -- React Native only: 'android' or 'ios', appVersionCode or appBundleVersion, and dev.
  platform         text NOT NULL DEFAULT '',
  app_version_code text NOT NULL DEFAULT '',
  dev              boolean NOT NULL DEFAULT false,
  project_root     text,
  -- The map's own "file" field, and how many sources it names.
  map_file         text,
  sources_count    integer NOT NULL DEFAULT 0,
  has_minified     boolean NOT NULL DEFAULT false,
  -- Bytes of every file of the upload as sent, and as stored (gzip).
  size_bytes       bigint NOT NULL,
  stored_bytes     bigint NOT NULL,
  -- NULL: uploaded with the project's API key (the upload tools); otherwise the user.
  uploaded_by      text REFERENCES users (id) ON DELETE SET NULL,
  uploaded_at      timestamptz NOT NULL,
  -- Events whose frames this upload mapped, counted by the symbolicator in batches.
  events_mapped    bigint NOT NULL DEFAULT 0
);
-- One upload per URL pattern and versions (overwrite=true replaces it); the symbolicator reads a
-- project's candidates by kind and app version through its prefix.
CREATE UNIQUE INDEX source_maps_identity_idx
  ON source_maps (project_id, kind, app_version, code_bundle_id, minified_url, platform, app_version_code, dev);
-- The API's list, newest first.
CREATE INDEX source_maps_list_idx ON source_maps (project_id, uploaded_at, id);

-- The files of an upload, gzip'd by Errata: the map, the minified file (minifiedFile or bundle),
-- and each source file sent in a field named by its URL.
CREATE TABLE source_map_files (
  source_map_id text NOT NULL REFERENCES source_maps (id) ON DELETE CASCADE,
  -- 'map', 'minified' or 'source'.
  role          text NOT NULL,
  -- The source URL (field name, '*' wildcards kept) of a 'source'; '' otherwise.
  name          text NOT NULL DEFAULT '',
  size_bytes    bigint NOT NULL,
  content       bytea NOT NULL,
  PRIMARY KEY (source_map_id, role, name)
);
-- Already compressed: stored out of line without TOAST compressing it again.
ALTER TABLE source_map_files ALTER COLUMN content SET STORAGE EXTERNAL;
