-- Code context of mapped JavaScript frames, stored once per project and source line window
-- instead of in every event (server/events/stored-frames.ts): a mapped frame in event_payloads
-- keeps the snippet's hash (`code_ref`), and reading an event puts the lines back as `code`.
-- Content-addressed, so ingestion inserts with ON CONFLICT DO NOTHING and every Errata process
-- sharing the database writes the same row. Not tied to the source map upload: events already
-- mapped keep their code when the upload is deleted. Deleting the project removes them.
CREATE TABLE source_code_snippets (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- SHA-256 of `lines` (its JSON text), base64url, first 22 characters (128 bits).
  hash       text NOT NULL,
  -- Line number → line text, as the frame's `code` (up to 3 lines either side of the frame's).
  lines      jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, hash)
);

-- source_map_files gains a role (no change of schema): 'source_content', one row per source a map
-- embeds in sourcesContent, named by its index in the map's sources. Uploads from now on store
-- the map without sourcesContent (role 'map') and each embedded source apart, so a cold lookup
-- reads only mappings, names and sources; maps stored whole before keep working as they are.
COMMENT ON COLUMN source_map_files.role IS 'map, minified, source (an uploaded source file named by its URL), or source_content (a source the map embeds, named by its index)';
