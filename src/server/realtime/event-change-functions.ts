import type { StoredFunction } from '../database/stored-function.ts';

/**
 * The change log's triggers (docs/decisions/0009-live-stream.md), read by
 * event-change-queries.ts. The triggers themselves (which table, which rows, when) stay
 * in the migrations that created them; their functions are here.
 *
 * Each change records its transaction's id (the column's default), and a reader takes
 * only the changes of transactions older than every transaction still running, in
 * (transaction, id) order, so no lock orders them. A status change does not notify:
 * PostgreSQL commits the transactions that sent a NOTIFY one at a time; the streams' poll
 * finds status changes within half a second (docs/decisions/0033-steady-for-hours.md).
 */

/** One row per status change (and per attempt) of an event, written by a row trigger on events. */
export const recordEventChangeFunction: StoredFunction = {
  name: 'record_event_change',
  definition: `CREATE OR REPLACE FUNCTION record_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status AND NEW.attempt = OLD.attempt THEN
    RETURN NEW;
  END IF;
  INSERT INTO event_changes (user_id, flow_id, event_id, status)
  VALUES (NEW.user_id, NEW.flow_id, NEW.id, NEW.status);
  RETURN NEW;
END
$$`,
};

/**
 * The intake's arrivals, once per statement (docs/decisions/0031-one-statement-intake.md):
 * one insert of all changes and one notification per flow, which wakes the streams at
 * once for the moment an owner waits for in the console.
 */
export const recordEventArrivalsFunction: StoredFunction = {
  name: 'record_event_arrivals',
  definition: `CREATE OR REPLACE FUNCTION record_event_arrivals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_changes (user_id, flow_id, event_id, status, arrival)
  SELECT user_id, flow_id, id, status, true FROM arrivals;
  PERFORM pg_notify('flowsmith_event_changes', flow_id) FROM (SELECT DISTINCT flow_id FROM arrivals) AS flows;
  RETURN NULL;
END
$$`,
};
