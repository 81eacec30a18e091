-- Shopper timers (docs/decisions/0011-shopper-timers.md). Abandonment timers are events
-- in status 'waiting' until process_after; what ends one early (a newer update, an order,
-- an add-to-cart, a deleted checkout) is found by these keys, read from the payload when
-- the event is received so that an event still in the queue already counts.
ALTER TABLE events ADD COLUMN cart_token text;
-- The Shopify object the event is about (the checkout's, cart's or order's id): a
-- checkouts/delete names its checkout only by id.
ALTER TABLE events ADD COLUMN object_id text;
-- When the shopper or the shop did it (updated_at, X-Shopify-Triggered-At, the pixel's
-- timestamp). Deliveries arrive out of order; this, not received_at, says which is newer.
ALTER TABLE events ADD COLUMN occurred_at timestamptz;

-- Emails are compared as Klaviyo does, without case.
UPDATE events SET shopper_email = lower(shopper_email) WHERE shopper_email IS NOT NULL;

CREATE INDEX events_cart ON events (user_id, cart_token) WHERE cart_token IS NOT NULL;
CREATE INDEX events_shopper ON events (user_id, shopper_email) WHERE shopper_email IS NOT NULL;
CREATE INDEX events_object ON events (user_id, object_id) WHERE object_id IS NOT NULL;
-- The timer sweep, and the pending timers an event may end.
CREATE INDEX events_waiting_due ON events (process_after) WHERE status = 'waiting';
CREATE INDEX events_waiting_owner ON events (user_id) WHERE status = 'waiting';
