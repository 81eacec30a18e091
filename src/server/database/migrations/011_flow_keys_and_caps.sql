-- Who may send what (docs/decisions/0013-who-may-send-what.md).
--
-- `webhook_key` is the secret path segment of the flow's URL, apart from the flow's id so
-- that the owner can rotate it: after "Rotate URL" the replaced key keeps working until
-- `previous_webhook_key_expires_at` (null there means the old URL stopped at once).
-- `pixel_key` is the browsing pixel's own public key (/api/pixel/{pixel_key}): it sits in
-- the storefront's code, so nothing about the flow's secret URL can be derived from it.
ALTER TABLE flows
  ADD COLUMN webhook_key text,
  ADD COLUMN previous_webhook_key text,
  ADD COLUMN previous_webhook_key_expires_at timestamptz,
  ADD COLUMN pixel_key text,
  -- Cost and abuse caps, owner-settable: one generation per shopper per flow per N hours
  -- (0 turns the rule off), and at most this many generations per flow per day (UTC).
  ADD COLUMN shopper_cooldown_hours integer NOT NULL DEFAULT 24 CHECK (shopper_cooldown_hours BETWEEN 0 AND 720),
  ADD COLUMN daily_generation_cap integer NOT NULL DEFAULT 2000 CHECK (daily_generation_cap BETWEEN 1 AND 1000000);

UPDATE flows SET webhook_key = id WHERE webhook_key IS NULL;
UPDATE flows SET pixel_key = replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '') WHERE pixel_key IS NULL;

ALTER TABLE flows
  ALTER COLUMN webhook_key SET NOT NULL,
  ALTER COLUMN pixel_key SET NOT NULL,
  ALTER COLUMN pixel_key SET DEFAULT replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
  ADD CONSTRAINT flows_previous_key_pair CHECK (previous_webhook_key IS NOT NULL OR previous_webhook_key_expires_at IS NULL);

CREATE UNIQUE INDEX flows_webhook_key ON flows (webhook_key);
CREATE UNIQUE INDEX flows_previous_webhook_key ON flows (previous_webhook_key) WHERE previous_webhook_key IS NOT NULL;
CREATE UNIQUE INDEX flows_pixel_key ON flows (pixel_key);

-- A flow starts with its id as its URL key, however it is inserted.
CREATE FUNCTION flows_default_webhook_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.webhook_key := COALESCE(NEW.webhook_key, NEW.id);
  RETURN NEW;
END;
$$;
CREATE TRIGGER flows_default_webhook_key BEFORE INSERT ON flows FOR EACH ROW EXECUTE FUNCTION flows_default_webhook_key();
