-- Shoppers' privacy (docs/decisions/0028-shopper-privacy.md).

-- Each owner's address for Shopify's compliance webhooks: /api/privacy-webhooks/{endpoint_key}.
-- The key is random and apart from the owner's id, so the address says nothing of the
-- account and cannot be guessed from any other address of the owner's.
CREATE TABLE privacy_endpoints (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  endpoint_key text NOT NULL UNIQUE DEFAULT replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- What was asked about shoppers' data and what became of it: the audit list the owner
-- sees, and at the same time the queue of the work (a request is carried out by whichever
-- process claims it; one whose worker died is claimed again once `lease_until` is past).
-- The shopper's email stays here after an erasure on purpose: it is the record that the
-- erasure was asked for and done.
CREATE TABLE privacy_requests (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  topic text NOT NULL CHECK (topic IN ('customers/data_request', 'customers/redact', 'shop/redact', 'owner/erase')),
  shop_domain text,
  shopper_email text,
  customer_id text,
  -- X-Shopify-Webhook-Id: a delivery Shopify repeats is recorded once.
  webhook_id text,
  requested_at timestamptz,
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('received', 'processing', 'done')),
  attempts integer NOT NULL DEFAULT 0,
  lease_until timestamptz,
  done_at timestamptz,
  records_affected integer,
  -- Where the owner downloads a data request's export (an app address), once it is ready.
  export_location text
);
CREATE UNIQUE INDEX privacy_requests_webhook ON privacy_requests (user_id, webhook_id) WHERE webhook_id IS NOT NULL;
CREATE INDEX privacy_requests_owner ON privacy_requests (user_id, received_at DESC);
CREATE INDEX privacy_requests_open ON privacy_requests (received_at) WHERE status <> 'done';

-- A data request's export: what was kept about the shopper when it was asked. It is
-- itself shopper data, so a later erasure of the shopper removes it too.
CREATE TABLE privacy_exports (
  request_id text PRIMARY KEY REFERENCES privacy_requests (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  shopper_email text NOT NULL,
  shop_domain text,
  content jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX privacy_exports_shopper ON privacy_exports (user_id, shopper_email);
