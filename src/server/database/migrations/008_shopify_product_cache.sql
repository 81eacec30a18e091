-- Product details fetched from an owner's shop (docs/decisions/0010-shopify.md): events whose
-- line items carry no description are filled in from here; an entry is fresh for 24 hours.
CREATE TABLE shopify_product_cache (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  product_id text NOT NULL,
  details jsonb NOT NULL,
  fetched_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, product_id)
);

-- One row per shop: when its next Admin API call may start (the ~2 requests/s spacing).
CREATE TABLE shopify_request_slots (
  shop text PRIMARY KEY,
  next_at timestamptz NOT NULL
);
