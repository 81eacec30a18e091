-- What each generation cost. One OpenAI call may fill several assistants' fields
-- (Structured Outputs); each field's row carries the call's id and its share of the
-- call's tokens and cost, so sums over rows give the calls' totals.
ALTER TABLE event_generations
  ADD COLUMN cached_input_tokens integer NOT NULL DEFAULT 0,
  -- The tier OpenAI says served the call ('flex', 'default', …); null when no call was made.
  ADD COLUMN service_tier text,
  ADD COLUMN cost_usd numeric(14, 8) NOT NULL DEFAULT 0,
  ADD COLUMN openai_call_id text,
  -- The generation cache: a hash of (flow, model, instructions, prompt) when the prompt
  -- names nothing of the shopper; an identical request within the flow's window reuses the text.
  ADD COLUMN reuse_key text,
  -- Where a reused text came from: an earlier attempt of this event (a replay), or an
  -- identical request of another event (the generation cache).
  ADD COLUMN reused_from text CHECK (reused_from IN ('earlier_attempt', 'identical_request'));

CREATE INDEX event_generations_reuse ON event_generations (reuse_key, created_at DESC)
  WHERE reuse_key IS NOT NULL AND status = 'succeeded';

-- The owner's cost settings per flow.
ALTER TABLE flows
  -- Flex tier (about half the price, slower) for flows whose wait is 15 minutes or more.
  ADD COLUMN use_flex_tier boolean NOT NULL DEFAULT true,
  -- The generation cache's window; 0 turns reuse off.
  ADD COLUMN reuse_window_hours integer NOT NULL DEFAULT 24 CHECK (reuse_window_hours BETWEEN 0 AND 720),
  -- Dollars a day (UTC) the flow may spend on OpenAI; null = no budget.
  ADD COLUMN daily_budget_usd numeric(10, 2) CHECK (daily_budget_usd IS NULL OR daily_budget_usd > 0),
  -- Past the budget, events wait for the next day or are skipped.
  ADD COLUMN over_budget text NOT NULL DEFAULT 'wait' CHECK (over_budget IN ('wait', 'skip'));

-- What each flow spent on OpenAI per day (UTC), added to as each call's answer arrives:
-- the dashboard's cost and the budget's check read one row instead of summing generations.
CREATE TABLE flow_daily_spend (
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  day date NOT NULL,
  cost_usd numeric(14, 8) NOT NULL DEFAULT 0,
  calls integer NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  cached_input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (flow_id, day)
);
