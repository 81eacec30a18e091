import type { StoredFunction } from '../../database/stored-function.ts';

/**
 * A Klaviyo request's slot taken in one statement, so in one round trip
 * (docs/decisions/0020-klaviyo-batches.md); called by klaviyo-rate-queries.ts. The
 * account's bucket row is locked while its windows are counted; taken in a client
 * transaction, that lock was held across five round trips to a busy worker, and under a
 * backlog every delivery's check queued on it (60 ms a wait on average in bench:delivery,
 * each wait holding a pooled connection).
 *
 * `p_now` is the app's clock when the call was made. A use must be stamped once the lock
 * is held (a use stamped before the wait would leave its window early by that wait,
 * while its request goes out late), so the time spent waiting here is added to it.
 * `p_padded_ms` are the windows as the app counts them (a little longer than Klaviyo's).
 * Returns wait_ms 0 and the use's stamp when a slot was taken, else how long from
 * `stamped_at` until one frees up. With `p_lock_timeout_ms`, a bucket busy for longer than
 * that fails with lock_not_available (55P03), as "not now".
 */
export const takeKlaviyoSlotFunction: StoredFunction = {
  name: 'take_klaviyo_slot',
  definition: `CREATE OR REPLACE FUNCTION take_klaviyo_slot(p_key text, p_now timestamptz, p_limits integer[], p_padded_ms float8[], p_lock_timeout_ms integer)
RETURNS TABLE (wait_ms integer, stamped_at timestamptz) LANGUAGE plpgsql AS $$
DECLARE
  entered timestamptz := clock_timestamp();
  lock_timeout_before text := current_setting('lock_timeout');
  stamped timestamptz;
  longest float8;
  frees_in float8;
  waiting integer := 0;
BEGIN
  INSERT INTO klaviyo_rate_buckets (bucket_key) VALUES (p_key) ON CONFLICT DO NOTHING;
  IF p_lock_timeout_ms IS NOT NULL THEN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  END IF;
  PERFORM 1 FROM klaviyo_rate_buckets WHERE bucket_key = p_key FOR UPDATE;
  IF p_lock_timeout_ms IS NOT NULL THEN
    PERFORM set_config('lock_timeout', lock_timeout_before, true);
  END IF;
  -- In whole milliseconds, as the app's clock and its Dates count: a stamp with microseconds
  -- made the time a waiting request was told to come back (the stamp as a Date plus the
  -- wait) fall up to a millisecond before its slot freed.
  stamped := date_trunc('milliseconds', p_now + (clock_timestamp() - entered));
  SELECT max(padded) INTO longest FROM unnest(p_padded_ms) AS padded;
  DELETE FROM klaviyo_rate_uses WHERE bucket_key = p_key AND used_at < stamped - make_interval(secs => longest / 1000);
  FOR window_index IN 1 .. coalesce(array_length(p_limits, 1), 0) LOOP
    -- The limit-th newest use inside the window: while it is inside, the window is full.
    SELECT extract(epoch FROM (used_at + make_interval(secs => p_padded_ms[window_index] / 1000) - stamped)) * 1000 INTO frees_in
      FROM klaviyo_rate_uses
     WHERE bucket_key = p_key AND used_at > stamped - make_interval(secs => p_padded_ms[window_index] / 1000)
     ORDER BY used_at DESC
    OFFSET p_limits[window_index] - 1 LIMIT 1;
    IF FOUND THEN
      waiting := greatest(waiting, ceil(frees_in)::integer);
    END IF;
  END LOOP;
  IF waiting = 0 THEN
    INSERT INTO klaviyo_rate_uses (bucket_key, used_at) VALUES (p_key, stamped);
  END IF;
  RETURN QUERY SELECT waiting, stamped;
END
$$`,
};
