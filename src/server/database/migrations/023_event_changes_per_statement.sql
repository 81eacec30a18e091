-- The change log of a batch of arrivals written once per statement instead of once per
-- row (docs/decisions/0031-one-statement-intake.md): a batch of a hundred webhooks took a
-- hundred trigger calls, lock requests and notifications, a sixth of the intake's time on
-- the database. The rule of 0009 stands: each flow's lock is taken before its changes get
-- their ids and held until commit, so one flow's changes become visible in id order.
-- Changes of status and attempt keep the row trigger (they come one at a time).
DROP TRIGGER events_record_change ON events;

CREATE TRIGGER events_record_change
AFTER UPDATE OF status, attempt ON events
FOR EACH ROW EXECUTE FUNCTION record_event_change();

CREATE FUNCTION record_event_arrivals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- In flow order, as the rows of store_events_once are, so batches never deadlock.
  PERFORM pg_advisory_xact_lock(727275, hashtext(flow_id)) FROM (SELECT DISTINCT flow_id FROM arrivals ORDER BY flow_id) AS flows;
  INSERT INTO event_changes (user_id, flow_id, event_id, status)
  SELECT user_id, flow_id, id, status FROM arrivals ORDER BY flow_id;
  PERFORM pg_notify('flowsmith_event_changes', flow_id) FROM (SELECT DISTINCT flow_id FROM arrivals) AS flows;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_record_arrivals
AFTER INSERT ON events
REFERENCING NEW TABLE AS arrivals
FOR EACH STATEMENT EXECUTE FUNCTION record_event_arrivals();
