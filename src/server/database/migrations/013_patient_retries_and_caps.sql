-- Patient retries and cost caps (docs/decisions/0014-patient-retries-and-caps.md).
--
-- A failing service call is tried again later, not slept on: the event waits (status
-- 'waiting', process_after = the next try) and the timer sweep sends its job when it is
-- due. `retry_count` is how many tries in a row failed without the event getting any
-- further; `retry_progress` is how far it had got (texts stored plus Klaviyo steps done)
-- when it last failed, so a try that gets further starts the count again.
ALTER TABLE events
  ADD COLUMN retry_count integer NOT NULL DEFAULT 0,
  ADD COLUMN retry_progress integer NOT NULL DEFAULT 0;

-- Generating events per flow and UTC day, counted by a guarded upsert so two workers
-- can never both take the last slot of the flow's daily_generation_cap.
CREATE TABLE flow_daily_generations (
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  day date NOT NULL,
  generations integer NOT NULL,
  PRIMARY KEY (flow_id, day)
);

-- When each shopper last got content from a flow (shopper_cooldown_hours). The shopper is
-- kept as a SHA-256 of the lower-cased email: the rule needs only equality, and the
-- table then holds no address to erase.
CREATE TABLE shopper_generation_cooldowns (
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  shopper_key text NOT NULL,
  event_id text NOT NULL,
  generated_at timestamptz NOT NULL,
  PRIMARY KEY (flow_id, shopper_key)
);

-- Event attempts that passed the caps: a retried job of one of them neither counts again
-- nor is refused by its own earlier reservation.
CREATE TABLE event_cap_passes (
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  passed_at timestamptz NOT NULL,
  PRIMARY KEY (event_id, attempt)
);
