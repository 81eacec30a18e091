import type { StoredFunction } from '../database/stored-function.ts';

/**
 * Accepted events and their jobs stored in one statement, so in one round trip
 * (docs/decisions/0031-one-statement-intake.md); called by `insertEventsOnce`
 * (event-queries.ts). It writes the events table, so it lives in the events module, the
 * table's one writer. Events whose Shopify event id, webhook id or event_id repeats a
 * stored one (or one earlier in the same batch) are skipped, and so are their jobs. The
 * bodies come apart from the rows, in row order, as text: inside the rows' JSON each body
 * (itself JSON, mostly) was escaped by the app and unescaped here.
 *
 * `job_statement` is pg-boss's own insert, as pg-boss hands it to its database adapter
 * (captured in one place: `JobQueue.sendManyStatement`, background/job-queue.ts), with
 * `jobs` being its one parameter; it is run only for the jobs whose event was stored.
 * Returns the ids of the events stored. A column that arrives with the event is added
 * here and in `eventRow` (event-queries.ts).
 */
export const storeEventsOnceFunction: StoredFunction = {
  name: 'store_events_once',
  definition: `CREATE OR REPLACE FUNCTION store_events_once(new_events json, raw_bodies text[], job_statement text, jobs json) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  stored text[];
  kept text;
BEGIN
  -- Rows in flow order: the change-log trigger locks each row's flow (0009), so concurrent
  -- batches take those locks in one order and never deadlock.
  WITH inserted AS (
    INSERT INTO events (
      id, flow_id, user_id, flow_type, source, topic, status, content_type, raw_body, headers,
      shopify_event_id, shopify_webhook_id, external_event_id, error, checkout_token, cart_token,
      object_id, shopper_email, occurred_at, process_after, received_at, updated_at, finished_at, dry_run
    )
    SELECT
      arriving.id, arriving.flow_id, arriving.user_id, arriving.flow_type, arriving.source, arriving.topic, arriving.status, arriving.content_type,
      raw_bodies[arriving.ordinality], arriving.headers, arriving.shopify_event_id, arriving.shopify_webhook_id, arriving.external_event_id,
      arriving.error, arriving.checkout_token, arriving.cart_token, arriving.object_id, arriving.shopper_email, arriving.occurred_at,
      arriving.process_after, arriving.received_at, arriving.updated_at, arriving.finished_at, arriving.dry_run
    FROM json_populate_recordset(NULL::events, new_events) WITH ORDINALITY AS arriving
    ORDER BY arriving.flow_id
    ON CONFLICT DO NOTHING
    RETURNING events.id
  )
  SELECT coalesce(array_agg(inserted.id), '{}') INTO stored FROM inserted;
  IF job_statement IS NOT NULL THEN
    -- Every event stored, as nearly always: every job is kept, without reading each one's
    -- JSON back for its event id (about 16 µs a job on the embedded database).
    IF cardinality(stored) = json_array_length(new_events) THEN
      kept := jobs::text;
    ELSE
      SELECT json_agg(job)::text INTO kept FROM json_array_elements(jobs) AS job WHERE job -> 'data' ->> 'eventId' = ANY (stored);
    END IF;
    IF kept IS NOT NULL THEN
      EXECUTE job_statement USING kept;
    END IF;
  END IF;
  RETURN QUERY SELECT unnest(stored);
END
$$`,
};
