-- The live webhook console's change log (docs/decisions/0009-live-stream.md): one row per
-- event received and per change of its processing status, written by a trigger so no
-- code path can forget it. Streams send the rows after the browser's Last-Event-ID, so a
-- console on any server process sees what any other process stored.
CREATE TABLE event_changes (
  id bigserial PRIMARY KEY,
  user_id text NOT NULL,
  flow_id text NOT NULL,
  event_id text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_changes_flow ON event_changes (flow_id, id);
CREATE INDEX event_changes_created ON event_changes (created_at);

-- A test event sent from the console with "dry run": generate, never write to Klaviyo.
ALTER TABLE events ADD COLUMN dry_run boolean NOT NULL DEFAULT false;

CREATE FUNCTION record_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  change_id bigint;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status AND NEW.attempt = OLD.attempt THEN
    RETURN NEW;
  END IF;
  -- Changes of one flow must become visible in id order, or a stream that has read id 11
  -- would never see a slower transaction's id 10. The lock is per flow and held until
  -- commit, so only writes to the same flow wait for each other.
  PERFORM pg_advisory_xact_lock(727275, hashtext(NEW.flow_id));
  INSERT INTO event_changes (user_id, flow_id, event_id, status)
  VALUES (NEW.user_id, NEW.flow_id, NEW.id, NEW.status)
  RETURNING id INTO change_id;
  PERFORM pg_notify('flowsmith_event_changes', NEW.flow_id);
  RETURN NEW;
END
$$;

CREATE TRIGGER events_record_change
AFTER INSERT OR UPDATE OF status, attempt ON events
FOR EACH ROW EXECUTE FUNCTION record_event_change();
