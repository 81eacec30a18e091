-- The sandbox: built-in stand-ins for OpenAI, Klaviyo and Shopify that an owner can try
-- Flowsmith with before connecting real accounts (docs/decisions/0026-sandbox.md).

-- One row per owner who ever tried the sandbox. `access_token` is what the engine sends
-- to the sandbox services on the loopback listener (as the Klaviyo key, the OpenAI key of
-- the sample writer and the shop's Admin API token): it names the owner there, so one
-- owner's token never reaches another's sandbox data. `shop_signing_secret` signs the
-- sample shop's webhooks. `openai_api_key` (encrypted like the saved credentials) is an
-- OpenAI key the owner gave for the sandbox alone.
CREATE TABLE sandbox_accounts (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  access_token text NOT NULL UNIQUE,
  shop_signing_secret text NOT NULL,
  openai_api_key text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- When the owner's events went to the sandbox. An event belongs to the sandbox when it
-- was received inside a period, whenever it is processed (a retry, a replay), so sandbox
-- data never reaches a real service after the owner switches.
CREATE TABLE sandbox_periods (
  user_id text NOT NULL REFERENCES sandbox_accounts (user_id) ON DELETE CASCADE,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  PRIMARY KEY (user_id, started_at)
);
CREATE UNIQUE INDEX sandbox_periods_open ON sandbox_periods (user_id) WHERE ended_at IS NULL;

-- The sandbox Klaviyo's profiles, per owner, with the properties the engine wrote.
CREATE TABLE sandbox_profiles (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES sandbox_accounts (user_id) ON DELETE CASCADE,
  email text NOT NULL,
  first_name text,
  last_name text,
  properties jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, email)
);

-- The sandbox Klaviyo's events (a flow's Klaviyo event name), de-duplicated by unique_id.
CREATE TABLE sandbox_klaviyo_events (
  user_id text NOT NULL REFERENCES sandbox_accounts (user_id) ON DELETE CASCADE,
  unique_id text NOT NULL,
  metric text NOT NULL,
  email text NOT NULL,
  properties jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, unique_id)
);
