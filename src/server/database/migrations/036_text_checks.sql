-- Texts are checked before delivery (docs/decisions/0040-texts-checked-before-delivery.md).
-- A flow's rules for its texts: discount codes, banned words, language, and what goes out
-- when a text fails twice. '{}' reads as the defaults (no codes, no banned words, the
-- shopper's language, the fallback text).
ALTER TABLE flows ADD COLUMN text_rules jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Each text's checks: NULL until checked (a text written before a crash, or before these
-- checks existed, is checked when its event goes on); then the verdicts, the texts refused
-- and what was delivered instead.
ALTER TABLE event_generations ADD COLUMN checks jsonb;

-- Texts that wait for the owner's approval (a flow's `requireApproval` rule), one review
-- per attempt of an event. Pending until the owner approves or rejects, or until
-- `expires_at` passes (the moment the texts were for is over); the event waits meanwhile.
CREATE TABLE text_reviews (
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  user_id text NOT NULL,
  flow_id text NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  decided_by text CHECK (decided_by IN ('owner', 'automatic')),
  edited boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  decided_at timestamptz,
  PRIMARY KEY (event_id, attempt)
);
CREATE INDEX text_reviews_pending ON text_reviews (user_id, expires_at) WHERE status = 'pending';
-- The owner's latest decisions per flow, for "approve automatically after N in a row".
CREATE INDEX text_reviews_decided ON text_reviews (flow_id, decided_at DESC) WHERE decided_by = 'owner';
