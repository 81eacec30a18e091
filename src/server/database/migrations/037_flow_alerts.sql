-- When a flow stops writing texts for a reason the owner controls (its daily cap, its
-- budget, texts failing their checks, a key a service refuses), the dashboard and the flow
-- page say so at once, and the owner gets one mail per flow and day
-- (docs/decisions/0041-flow-alerts.md). One row per flow, UTC day and reason, counting
-- the events that got no text.
CREATE TABLE flow_alerts (
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  day date NOT NULL,
  reason text NOT NULL CHECK (reason IN ('daily_cap', 'budget', 'checks', 'key_refused')),
  user_id text NOT NULL,
  events integer NOT NULL,
  -- What the reason needs to be said in full: the cap, the budget, the service.
  detail text NOT NULL DEFAULT '',
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (flow_id, day, reason)
);
CREATE INDEX flow_alerts_owner ON flow_alerts (user_id, day);

-- The one mail per flow and day: whoever inserts the row sends it.
CREATE TABLE flow_alert_mails (
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  day date NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (flow_id, day)
);
