-- Revenue recovered (docs/decisions/0030-revenue-attribution.md): an order of a shopper
-- the owner's flows delivered content to within the attribution window is credited to
-- the most recent such delivery. One row per order per owner, whichever topic or
-- retry brought it first, so an order arriving twice (or as orders/create then
-- orders/paid) counts once.
CREATE TABLE order_attributions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The shop's order id (Shopify's `id`, a generic sender's order id or number).
  order_key text NOT NULL,
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  flow_type text NOT NULL,
  -- The delivered event the order is credited to, and the order's own event. Retention
  -- deletes old events; the order stays counted (the revenue happened), so the links are
  -- set null rather than the row deleted or the deletion refused.
  delivery_event_id text REFERENCES events (id) ON DELETE SET NULL,
  order_event_id text REFERENCES events (id) ON DELETE SET NULL,
  -- As the shop gave them: amounts in different currencies are never added or converted.
  -- No precision limit: any amount the normaliser accepts is stored, so an order's
  -- processing can never fail on its size.
  amount numeric,
  currency text,
  ordered_at timestamptz NOT NULL,
  delivered_at timestamptz NOT NULL,
  -- The shopper's email lives in this one column, so an erasure finds and clears it.
  shopper_email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, order_key)
);
CREATE INDEX order_attributions_owner_time ON order_attributions (user_id, ordered_at);

-- The owner's attribution window: how many days after a delivery an order is credited
-- to it. Absent row = the default (5 days).
CREATE TABLE attribution_settings (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  window_days integer NOT NULL CHECK (window_days BETWEEN 1 AND 30),
  updated_at timestamptz NOT NULL DEFAULT now()
);
