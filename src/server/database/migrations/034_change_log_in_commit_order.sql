-- The change log in commit order without a lock (docs/decisions/0009-live-stream.md).
--
-- Each flow's changes took a transaction-scoped advisory lock so that they became
-- visible in id order. Every status change of a flow held it until its commit, through
-- the commit's WAL flush, so a shop's one busy flow committed its changes one at a time:
-- at 150 events a second on a server (four or five changes each), a tenth of the
-- database sessions waited on that lock and the flushes could not be grouped
-- (docs/decisions/0033-steady-for-hours.md).
--
-- Instead each change records its transaction's id, and a reader takes only the changes
-- of transactions older than every transaction still running
-- (pg_snapshot_xmin(pg_current_snapshot())), in (transaction, id) order. Those
-- transactions are over, so no change can later appear before the reader's cursor.
--
-- A status change no longer notifies either: PostgreSQL commits the transactions that
-- sent a NOTIFY one at a time (a database-wide lock held through the commit's flush, to
-- keep the notification queue in commit order), the same queue by another name. The
-- streams' poll finds status changes within half a second; an arrival, the moment an
-- owner waits for in the console, still wakes them at once (one NOTIFY per intake
-- statement and flow, not per change).
ALTER TABLE event_changes ADD COLUMN tx xid8 NOT NULL DEFAULT '0';
ALTER TABLE event_changes ALTER COLUMN tx SET DEFAULT pg_current_xact_id();

CREATE INDEX event_changes_flow_tx ON event_changes (flow_id, tx, id);
DROP INDEX event_changes_flow;

CREATE OR REPLACE FUNCTION record_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status AND NEW.attempt = OLD.attempt THEN
    RETURN NEW;
  END IF;
  INSERT INTO event_changes (user_id, flow_id, event_id, status)
  VALUES (NEW.user_id, NEW.flow_id, NEW.id, NEW.status);
  RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION record_event_arrivals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_changes (user_id, flow_id, event_id, status, arrival)
  SELECT user_id, flow_id, id, status, true FROM arrivals;
  PERFORM pg_notify('flowsmith_event_changes', flow_id) FROM (SELECT DISTINCT flow_id FROM arrivals) AS flows;
  RETURN NULL;
END
$$;
