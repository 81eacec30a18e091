-- Recommendations from the owner's shop (docs/decisions/0050-recommendations-from-the-shop.md).
-- A flow's settings: Shopify's intent, how many, and the profile property the list goes to.
ALTER TABLE flows ADD COLUMN recommendations jsonb NOT NULL DEFAULT '{}'::jsonb;

-- What the storefront recommended for a product, per intent, as the shop answered it (before
-- the per-shopper filtering): fresh for a day, like the product details beside it.
CREATE TABLE shopify_recommendation_cache (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  product_id text NOT NULL,
  intent text NOT NULL,
  recommendations jsonb NOT NULL,
  fetched_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, product_id, intent)
);

