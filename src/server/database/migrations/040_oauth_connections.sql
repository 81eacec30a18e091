-- Connecting by OAuth (docs/decisions/0048-connect-by-oauth.md). Columns marked (enc) hold
-- only ciphertext of the credentials cipher, bound to their table, column and owner.

-- The owner's record names how each service is connected: Shopify by the deployment's app
-- ('oauth', its tokens in shopify_installations), Klaviyo by a private key or by OAuth
-- (its tokens in klaviyo_connections; Klaviyo wants one or the other, never both).
ALTER TABLE api_credentials DROP CONSTRAINT IF EXISTS api_credentials_shopify_auth_method_check;
ALTER TABLE api_credentials ADD CONSTRAINT api_credentials_shopify_auth_method_check
  CHECK (shopify_auth_method IN ('access_token', 'client_credentials', 'oauth'));
ALTER TABLE api_credentials ALTER COLUMN klaviyo_api_key DROP NOT NULL;
ALTER TABLE api_credentials ADD COLUMN klaviyo_auth_method text NOT NULL DEFAULT 'api_key'
  CHECK (klaviyo_auth_method IN ('api_key', 'oauth'));
ALTER TABLE api_credentials ADD CONSTRAINT api_credentials_klaviyo_key_check
  CHECK (klaviyo_auth_method <> 'api_key' OR klaviyo_api_key IS NOT NULL);

-- A connection begun and not yet come back: one use, a few minutes, bound to the owner
-- whose session began it. Only a hash of the state is kept; the state itself travels in
-- the authorize address and comes back in the callback.
CREATE TABLE oauth_states (
  state_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  service text NOT NULL CHECK (service IN ('shopify', 'klaviyo')),
  -- Shopify: the shop the owner named; the callback must be for this shop.
  shop_domain text,
  -- (enc) Klaviyo: the PKCE code verifier.
  code_verifier text,
  -- The page of the app the owner returns to.
  return_to text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_states_user ON oauth_states (user_id);
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);

-- A shop connected through the deployment's Shopify app: at most one owner per shop and
-- one shop per owner. Expiring offline tokens: the access token lives about an hour, the
-- refresh token is replaced at each renewal. After an uninstall the tokens are gone and the
-- row stays (status 'uninstalled') so the owner's flows and a later re-install find it.
CREATE TABLE shopify_installations (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  shop_domain text NOT NULL UNIQUE,
  shop_name text,
  -- The access scopes Shopify granted, comma-separated, as it gives them.
  scopes text NOT NULL,
  status text NOT NULL CHECK (status IN ('connected', 'uninstalled', 'renewal_refused')),
  -- Why it is not connected, in Shopify's words without secrets.
  problem text,
  access_token text, -- (enc)
  access_token_expires_at timestamptz,
  refresh_token text, -- (enc)
  refresh_token_expires_at timestamptz,
  -- One renewal at a time across processes: the process that set this renews until then.
  renewing_until timestamptz,
  renewed_at timestamptz,
  connected_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (status <> 'connected' OR access_token IS NOT NULL)
);

-- A Klaviyo account connected by OAuth (authorization code with PKCE).
CREATE TABLE klaviyo_connections (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  account_name text,
  -- The scopes Klaviyo granted, space-separated, as it gives them.
  scopes text NOT NULL,
  status text NOT NULL CHECK (status IN ('connected', 'renewal_refused')),
  problem text,
  access_token text, -- (enc)
  access_token_expires_at timestamptz,
  refresh_token text, -- (enc)
  refresh_token_expires_at timestamptz,
  renewing_until timestamptz,
  renewed_at timestamptz,
  connected_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (status <> 'connected' OR (access_token IS NOT NULL AND refresh_token IS NOT NULL))
);

-- Two more conditions the owner is told of: the app was uninstalled from the shop, and the
-- Klaviyo connection is gone (disconnected, or its renewal refused for good).
ALTER TABLE service_conditions DROP CONSTRAINT IF EXISTS service_conditions_kind_check;
ALTER TABLE service_conditions ADD CONSTRAINT service_conditions_kind_check
  CHECK (kind IN ('klaviyo_bulk_refused', 'shopify_refused', 'openai_model_unavailable', 'openai_quota', 'shopify_uninstalled', 'klaviyo_disconnected'));
