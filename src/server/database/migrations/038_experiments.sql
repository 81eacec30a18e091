-- Prompt variants tried on real shoppers, and a holdout that measures what the AI text adds
-- (docs/decisions/0043-experiments.md). At most one running experiment per flow; an
-- ended one keeps its record. `arms`: [{"key": "A", "prompts": {"<klaviyo property>": "<template>"}}].
CREATE TABLE flow_experiments (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  arms jsonb NOT NULL,
  holdout_percent integer NOT NULL CHECK (holdout_percent BETWEEN 0 AND 50),
  split text NOT NULL CHECK (split IN ('fixed', 'adaptive')),
  min_exposures integer NOT NULL CHECK (min_exposures > 0),
  auto_promote boolean NOT NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  end_reason text CHECK (end_reason IN ('promoted', 'auto_promoted', 'changed', 'stopped')),
  winner text CHECK (winner IN ('A', 'B', 'C', 'D'))
);
CREATE UNIQUE INDEX flow_experiments_running ON flow_experiments (flow_id) WHERE ended_at IS NULL;
CREATE INDEX flow_experiments_by_flow ON flow_experiments (flow_id, started_at DESC);
CREATE INDEX flow_experiments_auto_promote ON flow_experiments (started_at) WHERE ended_at IS NULL AND auto_promote;

-- One row per shopper and experiment: the shopper's group for the experiment's whole life,
-- and one exposure. `shopper_key` is a digest of the email, never the email; an erased
-- shopper's key is cleared, so the counts stay and the person goes.
CREATE TABLE experiment_assignments (
  id bigserial PRIMARY KEY,
  experiment_id text NOT NULL REFERENCES flow_experiments (id) ON DELETE CASCADE,
  shopper_key text,
  group_key text NOT NULL CHECK (group_key IN ('A', 'B', 'C', 'D', 'holdout')),
  first_exposed_at timestamptz NOT NULL,
  last_exposed_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX experiment_assignments_shopper ON experiment_assignments (experiment_id, shopper_key);
-- An order looks for its shopper's exposures across the owner's experiments.
CREATE INDEX experiment_assignments_by_shopper ON experiment_assignments (shopper_key) WHERE shopper_key IS NOT NULL;

-- Which group each event was processed in, for the event log (and a retried or replayed
-- event keeps it).
CREATE TABLE experiment_event_groups (
  event_id text PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  experiment_id text NOT NULL REFERENCES flow_experiments (id) ON DELETE CASCADE,
  group_key text NOT NULL
);

-- Orders credited to an exposure: once per order and experiment, in the order's currency,
-- through the attribution of docs/decisions/0030-revenue-attribution.md.
CREATE TABLE experiment_orders (
  experiment_id text NOT NULL REFERENCES flow_experiments (id) ON DELETE CASCADE,
  order_key text NOT NULL,
  assignment_id bigint NOT NULL REFERENCES experiment_assignments (id) ON DELETE CASCADE,
  group_key text NOT NULL,
  amount numeric,
  currency text,
  ordered_at timestamptz NOT NULL,
  PRIMARY KEY (experiment_id, order_key)
);
CREATE INDEX experiment_orders_assignment ON experiment_orders (assignment_id);

-- A holdout shopper's delivery writes no text: it clears the flow's properties and sends
-- the Klaviyo event marked as holdout. It is not a delivery of AI content, so it earns no
-- revenue in the attribution of 0030.
ALTER TABLE event_deliveries ADD COLUMN holdout boolean NOT NULL DEFAULT false;
