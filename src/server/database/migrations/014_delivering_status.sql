-- The lifecycle names the step between "texts written" and "on the profile": an event
-- whose Klaviyo write is under way is `delivering` (src/server/events/event-lifecycle.ts).
ALTER TABLE events DROP CONSTRAINT events_status_check;
ALTER TABLE events ADD CONSTRAINT events_status_check
  CHECK (status IN ('received', 'waiting', 'generating', 'delivering', 'delivered', 'skipped', 'failed', 'rejected'));
