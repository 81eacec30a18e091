-- A call to a model without a known price (integrations/openai/openai-prices.ts) is counted at the
-- dearest known price: an estimate, which the owner is shown as one. Each text row says
-- whether its cost is estimated, and each flow's day how many of its calls were.
ALTER TABLE event_generations ADD COLUMN cost_estimated boolean NOT NULL DEFAULT false;
ALTER TABLE flow_daily_spend ADD COLUMN estimated_calls integer NOT NULL DEFAULT 0;
