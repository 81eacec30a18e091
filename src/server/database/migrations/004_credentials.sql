-- One record per owner: the three services' credentials (docs/product/specification.md
-- §3, changed by docs/product/product-rules.md §1). Columns marked (enc) hold only
-- ciphertext, "v1:" + base64(nonce | ciphertext | tag), bound to this owner and column
-- (docs/decisions/0007-credential-encryption.md). The model and the shop domain are not
-- secrets and stay readable.
CREATE TABLE api_credentials (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  klaviyo_api_key text NOT NULL, -- (enc)
  openai_api_key text NOT NULL, -- (enc)
  openai_model text NOT NULL,
  shopify_domain text NOT NULL,
  shopify_auth_method text NOT NULL CHECK (shopify_auth_method IN ('access_token', 'client_credentials')),
  shopify_access_token text, -- (enc) the fixed Admin API token of an older custom app
  shopify_client_id text, -- (enc)
  shopify_client_secret text, -- (enc)
  -- (enc) The webhook signing secret; null with client credentials means the client
  -- secret signs. After a change the previous one verifies for one more hour.
  shopify_signing_secret text,
  shopify_previous_signing_secret text, -- (enc)
  shopify_previous_signing_secret_until timestamptz,
  -- (enc) The last token obtained by the client-credentials grant, renewed before it expires.
  shopify_obtained_token text,
  shopify_obtained_token_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (shopify_auth_method <> 'access_token' OR (shopify_access_token IS NOT NULL AND shopify_signing_secret IS NOT NULL)),
  CHECK (shopify_auth_method <> 'client_credentials' OR (shopify_client_id IS NOT NULL AND shopify_client_secret IS NOT NULL))
);
