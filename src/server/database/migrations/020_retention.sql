-- Retention and account deletion (docs/decisions/0029-retention-and-account-deletion.md).
-- How many days an owner's events, their payloads and texts are kept. One setting per
-- owner, for all flows: a shop keeps one promise about its shoppers' data. No row means
-- the default of 30 days, so existing owners need no backfill.
CREATE TABLE retention_settings (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  retention_days integer NOT NULL CHECK (retention_days BETWEEN 1 AND 365),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The cooldowns hold a shopper's key: the retention job finds the spent ones by age.
CREATE INDEX shopper_generation_cooldowns_generated ON shopper_generation_cooldowns (generated_at);
