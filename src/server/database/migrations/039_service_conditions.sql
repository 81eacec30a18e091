-- A condition of an owner's service that makes every later event slower, dearer or fail
-- (a Klaviyo key without the Lists permission, a store that refuses the token, a model
-- OpenAI no longer serves, an exhausted OpenAI quota), shown once on the dashboard and the
-- flow pages with its cause and fix until it is gone (docs/decisions/0047-service-conditions.md).
-- One row per owner, kind and subject (the model, for a model; '' otherwise).
CREATE TABLE service_conditions (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('klaviyo_bulk_refused', 'shopify_refused', 'openai_model_unavailable', 'openai_quota')),
  subject text NOT NULL DEFAULT '',
  -- The service's own words, without secrets.
  detail text NOT NULL DEFAULT '',
  first_at timestamptz NOT NULL,
  -- The last time an event met it: it stands only while this is after the owner's last
  -- change of what fixes it (their saved keys, their flows' models).
  last_at timestamptz NOT NULL,
  -- When the service was last asked whether it is still so (the store's periodic re-check).
  checked_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, kind, subject)
);
CREATE INDEX service_conditions_due ON service_conditions (kind, checked_at);
