-- For hours of steady load (docs/decisions/0033-steady-for-hours.md).
--
-- The change log says itself which change is an event's arrival. The console read it
-- as "no earlier change of this event", which stops being true once the log is pruned
-- to minutes (realtime/event-change-queries.ts): a waiting event's later change would
-- have looked like a new arrival.
ALTER TABLE event_changes ADD COLUMN arrival boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION record_event_arrivals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- In flow order, as the rows of store_events_once are, so batches never deadlock.
  PERFORM pg_advisory_xact_lock(727275, hashtext(flow_id)) FROM (SELECT DISTINCT flow_id FROM arrivals ORDER BY flow_id) AS flows;
  INSERT INTO event_changes (user_id, flow_id, event_id, status, arrival)
  SELECT user_id, flow_id, id, status, true FROM arrivals ORDER BY flow_id;
  PERFORM pg_notify('flowsmith_event_changes', flow_id) FROM (SELECT DISTINCT flow_id FROM arrivals) AS flows;
  RETURN NULL;
END
$$;
