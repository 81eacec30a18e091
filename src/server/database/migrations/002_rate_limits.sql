-- One row per counted use of a per-user limit (docs/product/specification.md §9). A use
-- is released 60 seconds after it was made; rows older than that are deleted as limits
-- are checked.
CREATE TABLE user_rate_limit_uses (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('write', 'read')),
  used_at timestamptz NOT NULL
);
CREATE INDEX user_rate_limit_uses_lookup ON user_rate_limit_uses (user_id, kind, used_at);
