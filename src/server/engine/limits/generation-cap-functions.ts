import type { StoredFunction } from '../../database/stored-function.ts';

/**
 * An event's place under its flow's caps taken in one statement, so in one round trip
 * (docs/decisions/0014-patient-retries-and-caps.md); called by generation-cap-queries.ts.
 * Every generating event of a flow adds to one row of flow_daily_generations; its lock is
 * held until commit. Taken in a client transaction, the lock was held across two round
 * trips to the app as well (the upsert's answer, then COMMIT), and under a backlog every
 * job of the flow queued on it: bench:delivery measured 93 ms of waiting per event, which
 * bounded a worker at about 140 events a second whatever its concurrency.
 *
 * The rules are those of the transaction it replaced: the pass first (a second job of the
 * same attempt waits here for the first one's outcome, and an attempt that passed passes
 * again without counting), then the shopper's cooldown, then the day's count, each a
 * guarded upsert that re-checks its guard on the row a concurrent writer left. A refusal
 * undoes the pass and the cooldown (the inner block is a subtransaction). Returns NULL when
 * the event may generate, else the refusing rule: 'shopper' or 'daily'.
 */
export const reserveGenerationCapsFunction: StoredFunction = {
  name: 'reserve_generation_caps',
  definition: `CREATE OR REPLACE FUNCTION reserve_generation_caps(
  p_event_id text, p_attempt integer, p_now timestamptz, p_flow_id text,
  p_shopper_key text, p_cooldown_hours integer, p_daily_cap integer, p_day date
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  refusal text;
BEGIN
  BEGIN
    INSERT INTO event_cap_passes (event_id, attempt, passed_at) VALUES (p_event_id, p_attempt, p_now) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    IF p_shopper_key IS NOT NULL AND p_cooldown_hours > 0 THEN
      INSERT INTO shopper_generation_cooldowns (flow_id, shopper_key, event_id, generated_at) VALUES (p_flow_id, p_shopper_key, p_event_id, p_now)
      ON CONFLICT (flow_id, shopper_key) DO UPDATE SET event_id = EXCLUDED.event_id, generated_at = EXCLUDED.generated_at
       WHERE shopper_generation_cooldowns.generated_at <= p_now - make_interval(hours => p_cooldown_hours);
      IF NOT FOUND THEN
        refusal := 'shopper';
        RAISE SQLSTATE 'FSCAP';
      END IF;
    END IF;
    INSERT INTO flow_daily_generations (flow_id, day, generations) VALUES (p_flow_id, p_day, 1)
    ON CONFLICT (flow_id, day) DO UPDATE SET generations = flow_daily_generations.generations + 1
     WHERE flow_daily_generations.generations < p_daily_cap;
    IF NOT FOUND THEN
      refusal := 'daily';
      RAISE SQLSTATE 'FSCAP';
    END IF;
  EXCEPTION WHEN SQLSTATE 'FSCAP' THEN
    RETURN refusal;
  END;
  RETURN NULL;
END
$$`,
};
