-- The stored functions' current texts live in TypeScript modules beside the queries that
-- call them (docs/decisions/0034-stored-functions-in-modules.md). After the numbered files,
-- the migration runner applies each function whose text differs from the one recorded
-- here, and records the hash of the text it applied. Until then a database holds the text
-- of the newest migration that defined the function; the earlier files stay as they were
-- applied.
CREATE TABLE stored_functions (
  name text PRIMARY KEY,
  definition_sha256 text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
