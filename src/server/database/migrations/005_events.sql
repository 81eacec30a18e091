-- Every event a flow's webhook URL received, and what became of it
-- (docs/decisions/0008-engine.md). An event is stored, together with its pg-boss job,
-- before the sender gets its 2xx, so nothing acknowledged can be lost.
CREATE TABLE events (
  id text PRIMARY KEY,
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  flow_type text NOT NULL,
  source text NOT NULL CHECK (source IN ('generic', 'shopify', 'pixel', 'test')),
  -- X-Shopify-Topic, the generic event_type or the pixel event name.
  topic text,
  -- De-duplication keys; only accepted events carry them, so a rejected delivery (a bad
  -- signature, say) does not make the sender's corrected retry look like a duplicate.
  shopify_event_id text,
  shopify_webhook_id text,
  external_event_id text,
  status text NOT NULL CHECK (status IN ('received', 'waiting', 'generating', 'delivered', 'skipped', 'failed', 'rejected')),
  content_type text,
  -- The body as received (truncated for rejected bodies; null when it was too large).
  raw_body text,
  -- The Shopify headers that say what the body is (never the signature).
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  normalized jsonb,
  shopper_email text,
  -- Why the event was skipped, failed or rejected, in words the owner can act on.
  error text,
  -- 1 for the first processing; each Replay adds one and delivers again.
  attempt integer NOT NULL DEFAULT 1,
  -- Abandoned-checkout timers: the checkout this event belongs to, and when to look again.
  checkout_token text,
  process_after timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE UNIQUE INDEX events_unique_shopify_event ON events (flow_id, shopify_event_id) WHERE shopify_event_id IS NOT NULL;
CREATE UNIQUE INDEX events_unique_shopify_webhook ON events (flow_id, shopify_webhook_id) WHERE shopify_webhook_id IS NOT NULL;
CREATE UNIQUE INDEX events_unique_external_event ON events (flow_id, external_event_id) WHERE external_event_id IS NOT NULL;
CREATE INDEX events_flow_received ON events (flow_id, received_at DESC);
CREATE INDEX events_user_received ON events (user_id, received_at DESC);
CREATE INDEX events_checkout ON events (user_id, checkout_token) WHERE checkout_token IS NOT NULL;

-- One AI text per event, attempt and assistant (keyed by its Klaviyo property). Stored
-- before delivery, so a retried delivery never generates again.
CREATE TABLE event_generations (
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  klaviyo_property text NOT NULL,
  assistant_name text NOT NULL,
  model text NOT NULL,
  instructions text,
  prompt text NOT NULL,
  status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  text text,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  total_tokens integer NOT NULL DEFAULT 0,
  duration_ms integer NOT NULL DEFAULT 0,
  -- True when a replay took the text of an earlier attempt with the same prompt.
  reused boolean NOT NULL DEFAULT false,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_id, attempt, klaviyo_property)
);
CREATE INDEX event_generations_created ON event_generations (created_at);

-- One Klaviyo delivery per event attempt. `id` is the Klaviyo event's unique_id, so a
-- retried job re-sending it is de-duplicated by Klaviyo too; each step records when it
-- succeeded so a retry resumes after it.
CREATE TABLE event_deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  properties jsonb NOT NULL,
  profile_id text,
  profile_created boolean,
  profile_written_at timestamptz,
  klaviyo_event_name text,
  event_sent_at timestamptz,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, attempt)
);
CREATE INDEX event_deliveries_created ON event_deliveries (created_at);

-- Klaviyo's per-account limits, shared by every worker process: one row per account
-- (a hash of its API key, never the key) and endpoint, locked while a request is
-- counted, and the requests of the last minute.
CREATE TABLE klaviyo_rate_buckets (
  bucket_key text PRIMARY KEY
);
CREATE TABLE klaviyo_rate_uses (
  bucket_key text NOT NULL REFERENCES klaviyo_rate_buckets (bucket_key) ON DELETE CASCADE,
  used_at timestamptz NOT NULL
);
CREATE INDEX klaviyo_rate_uses_lookup ON klaviyo_rate_uses (bucket_key, used_at);
