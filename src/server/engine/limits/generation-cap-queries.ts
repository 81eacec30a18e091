import type pg from 'pg';
import type { Queryable } from '../../database/database.ts';
import { shopperKey } from '../../platform/shopper-key.ts';

/**
 * The flow's cost and abuse caps (docs/decisions/0014-patient-retries-and-caps.md): one
 * generation per shopper per `shopperCooldownHours`, and at most `dailyGenerationCap`
 * generating events per UTC day. Both are taken in one statement before any OpenAI call,
 * each by a single guarded upsert: the row is locked by the first writer and the second
 * re-checks the guard on the updated row, so two workers can never both take the last
 * slot. The pass is recorded with the event attempt, so a retried job of an event that
 * already passed goes on without counting again.
 */
export interface CapRequest {
  eventId: string;
  attempt: number;
  flowId: string;
  /** Null when the per-shopper rule does not apply (a replay, a console test send). */
  shopperEmail: string | null;
  shopperCooldownHours: number;
  dailyGenerationCap: number;
  /** The app's clock. */
  now: Date;
}

export type CapRefusal = { rule: 'shopper'; hours: number } | { rule: 'daily'; cap: number };

/** The UTC day of `now`, as PostgreSQL's date. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Takes the event's place under the caps; null when it passed (now or on an earlier try),
 * else which cap refused it. One statement (reserve_generation_caps, in
 * generation-cap-functions.ts): the day's counter is one row per flow that every
 * generating event updates, and a client transaction held its lock
 * across round trips to this process, so a backlog's jobs queued on it. For the same
 * reason its commit does not wait for the WAL flush (synchronous_commit off for this
 * transaction only): the caller's next write, the event's status, commits synchronously
 * before any OpenAI call, and its flush carries this commit with it (WAL is written in
 * order), so a crash can lose a reservation only together with everything after it.
 */
export async function reserveGenerationCaps(db: Queryable, request: CapRequest): Promise<CapRefusal | null> {
  const { rows } = await db.query<{ refusal: CapRefusal['rule'] | null }>(
    "SELECT set_config('synchronous_commit', 'off', true), reserve_generation_caps($1, $2, $3, $4, $5, $6, $7, $8::date) AS refusal",
    [
      request.eventId,
      request.attempt,
      request.now,
      request.flowId,
      request.shopperEmail ? shopperKey(request.shopperEmail) : null,
      request.shopperCooldownHours,
      request.dailyGenerationCap,
      utcDay(request.now),
    ],
  );
  const refusal = rows[0]?.refusal ?? null;
  if (refusal === 'shopper') return { rule: 'shopper', hours: request.shopperCooldownHours };
  if (refusal === 'daily') return { rule: 'daily', cap: request.dailyGenerationCap };
  return null;
}

/** Generating events of the flow counted for the UTC day of `now` (for the tests and the owner's figures). */
export async function generationsOnDay(pool: pg.Pool, flowId: string, now: Date): Promise<number> {
  const { rows } = await pool.query<{ generations: number }>('SELECT generations FROM flow_daily_generations WHERE flow_id = $1 AND day = $2::date', [
    flowId,
    utcDay(now),
  ]);
  return rows[0]?.generations ?? 0;
}

/**
 * Forgets when the shopper last got content from the owner's flows (a privacy erasure,
 * src/server/privacy), or, with no email, every shopper of the owner's flows (a shop's
 * erasure). Returns the rows deleted.
 */
export async function eraseShopperCooldowns(db: Pick<pg.Pool, 'query'> | pg.PoolClient, userId: string, email: string | null): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM shopper_generation_cooldowns
      WHERE flow_id IN (SELECT id FROM flows WHERE user_id = $1) AND ($2::text IS NULL OR shopper_key = $2)`,
    [userId, email === null ? null : shopperKey(email)],
  );
  return rowCount ?? 0;
}

/**
 * Retention: an owner's shopper cooldowns older than `cutoff` whose cooldown is over by
 * `now` (a cooldown still running keeps its shopper from a second text, so it stays
 * until it ends), at most `limit` a call.
 */
export async function deleteSpentCooldowns(db: Queryable, userId: string, times: { cutoff: Date; now: Date }, limit: number): Promise<number> {
  const { cutoff, now } = times;
  const { rowCount } = await db.query(
    `DELETE FROM shopper_generation_cooldowns WHERE (flow_id, shopper_key) IN (
       SELECT c.flow_id, c.shopper_key FROM shopper_generation_cooldowns c JOIN flows f ON f.id = c.flow_id
        WHERE f.user_id = $1 AND c.generated_at < $2 AND c.generated_at <= $3::timestamptz - make_interval(hours => f.shopper_cooldown_hours)
        LIMIT $4 FOR UPDATE OF c SKIP LOCKED)`,
    [userId, cutoff, now, limit],
  );
  return rowCount ?? 0;
}
