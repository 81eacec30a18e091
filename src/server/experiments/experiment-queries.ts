import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database/database.ts';
import type { ExperimentArmKey, ExperimentEndReason, ExperimentGroupKey } from '../../shared/experiments/experiment-settings.ts';
import type { ExperimentObjective, ExperimentSplit } from '../../shared/experiments/experiment-schemas.ts';

/**
 * The owner of `flow_experiments`, `experiment_assignments`, `experiment_event_groups` and
 * `experiment_orders` (docs/decisions/0043-experiments.md). Shoppers are kept as a digest
 * of their email (`shopperKey`), never the email.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ExperimentArm {
  key: ExperimentArmKey;
  /** The prompt of each assistant, by its Klaviyo property. */
  prompts: Record<string, string>;
  /** Whether the arm's texts use what is known of the shopper (history, Klaviyo's predictions, recommendations). */
  shopperContext: boolean;
}

/** What decides the best arm, as the owner set it (migration 041). */
export interface ExperimentObjectiveSettings {
  objective: ExperimentObjective;
  /** The currency of a revenue objective; null under conversion. */
  objectiveCurrency: string | null;
}

export interface ExperimentRecord extends ExperimentObjectiveSettings {
  id: string;
  userId: string;
  flowId: string;
  arms: ExperimentArm[];
  holdoutPercent: number;
  split: ExperimentSplit;
  minExposures: number;
  autoPromote: boolean;
  startedAt: Date;
  endedAt: Date | null;
  endReason: ExperimentEndReason | null;
  winner: ExperimentArmKey | null;
}

interface ExperimentRow {
  id: string;
  user_id: string;
  flow_id: string;
  /** As stored: arms saved before migration 041 have no `shopperContext`. */
  arms: Array<Omit<ExperimentArm, 'shopperContext'> & { shopperContext?: boolean }>;
  holdout_percent: number;
  split: ExperimentSplit;
  min_exposures: number;
  auto_promote: boolean;
  objective: ExperimentObjective;
  objective_currency: string | null;
  started_at: Date;
  ended_at: Date | null;
  end_reason: ExperimentEndReason | null;
  winner: ExperimentArmKey | null;
}

const columns = 'id, user_id, flow_id, arms, holdout_percent, split, min_exposures, auto_promote, objective, objective_currency, started_at, ended_at, end_reason, winner';

function toExperiment(row: ExperimentRow): ExperimentRecord {
  return {
    id: row.id,
    userId: row.user_id,
    flowId: row.flow_id,
    // An arm stored before an arm could leave the shopper's context out used it, as every text did.
    arms: row.arms.map((arm) => ({ key: arm.key, prompts: arm.prompts, shopperContext: arm.shopperContext ?? true })),
    holdoutPercent: row.holdout_percent,
    split: row.split,
    minExposures: row.min_exposures,
    autoPromote: row.auto_promote,
    objective: row.objective,
    objectiveCurrency: row.objective_currency,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    endReason: row.end_reason,
    winner: row.winner,
  };
}

export async function findRunningExperiment(db: Queryable, flowId: string): Promise<ExperimentRecord | null> {
  const { rows } = await db.query<ExperimentRow>(`SELECT ${columns} FROM flow_experiments WHERE flow_id = $1 AND ended_at IS NULL`, [flowId]);
  return rows[0] ? toExperiment(rows[0]) : null;
}

export async function findExperimentById(db: Queryable, experimentId: string): Promise<ExperimentRecord | null> {
  const { rows } = await db.query<ExperimentRow>(`SELECT ${columns} FROM flow_experiments WHERE id = $1`, [experimentId]);
  return rows[0] ? toExperiment(rows[0]) : null;
}

/** The flow's running experiment first, then its ended ones, newest first. */
export async function listExperiments(db: Queryable, flowId: string, limit: number): Promise<ExperimentRecord[]> {
  const { rows } = await db.query<ExperimentRow>(
    `SELECT ${columns} FROM flow_experiments WHERE flow_id = $1 ORDER BY ended_at IS NULL DESC, started_at DESC, id LIMIT $2`,
    [flowId, limit],
  );
  return rows.map(toExperiment);
}

/** Running experiments that may promote their winner by themselves. */
export async function listAutoPromoting(db: Queryable): Promise<ExperimentRecord[]> {
  const { rows } = await db.query<ExperimentRow>(`SELECT ${columns} FROM flow_experiments WHERE ended_at IS NULL AND auto_promote ORDER BY started_at LIMIT 1000`);
  return rows.map(toExperiment);
}

export async function insertExperiment(
  db: Queryable,
  experiment: Omit<ExperimentRecord, 'id' | 'endedAt' | 'endReason' | 'winner'>,
): Promise<ExperimentRecord> {
  const { rows } = await db.query<ExperimentRow>(
    `INSERT INTO flow_experiments (id, user_id, flow_id, arms, holdout_percent, split, min_exposures, auto_promote, objective, objective_currency, started_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11) RETURNING ${columns}`,
    [
      randomUUID(),
      experiment.userId,
      experiment.flowId,
      JSON.stringify(experiment.arms),
      experiment.holdoutPercent,
      experiment.split,
      experiment.minExposures,
      experiment.autoPromote,
      experiment.objective,
      experiment.objectiveCurrency,
      experiment.startedAt,
    ],
  );
  return toExperiment(rows[0]!);
}

/** Settings that do not change who gets what (the split's rule, the minimum, promotion, the objective), changed in place. */
export async function updateExperimentSettings(
  db: Queryable,
  experimentId: string,
  settings: { split: ExperimentSplit; minExposures: number; autoPromote: boolean } & ExperimentObjectiveSettings,
): Promise<void> {
  await db.query(
    'UPDATE flow_experiments SET split = $2, min_exposures = $3, auto_promote = $4, objective = $5, objective_currency = $6 WHERE id = $1 AND ended_at IS NULL',
    [experimentId, settings.split, settings.minExposures, settings.autoPromote, settings.objective, settings.objectiveCurrency],
  );
}

/** Ends a running experiment; false when it had already ended (another request, or the promotion check, came first). */
export async function endExperiment(db: Queryable, experimentId: string, end: { at: Date; reason: ExperimentEndReason; winner: ExperimentArmKey | null }): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE flow_experiments SET ended_at = $2, end_reason = $3, winner = $4 WHERE id = $1 AND ended_at IS NULL', [
    experimentId,
    end.at,
    end.reason,
    end.winner,
  ]);
  return rowCount === 1;
}

/**
 * The event's group: the one it was processed in before (a retry, a replay), else the
 * shopper's in this experiment, else `group`, which the shopper then keeps for the
 * experiment's whole life (two of their events at once: the first one stored wins). Moves
 * the shopper's last exposure to `at` and records the event's group. One statement.
 */
export async function assignShopper(
  db: Queryable,
  assignment: { experimentId: string; shopperKey: string; group: ExperimentGroupKey; eventId: string; at: Date },
): Promise<{ experimentId: string; group: ExperimentGroupKey }> {
  const { rows } = await db.query<{ experiment_id: string; group_key: ExperimentGroupKey }>(
    `WITH known AS (
       SELECT experiment_id, group_key FROM experiment_event_groups WHERE event_id = $4
     ), assigned AS (
       INSERT INTO experiment_assignments (experiment_id, shopper_key, group_key, first_exposed_at, last_exposed_at)
       SELECT $1, $2, $3, $5, $5 WHERE NOT EXISTS (SELECT 1 FROM known)
       ON CONFLICT (experiment_id, shopper_key) DO UPDATE SET last_exposed_at = greatest(experiment_assignments.last_exposed_at, EXCLUDED.last_exposed_at)
       RETURNING experiment_id, group_key
     ), event_group AS (
       INSERT INTO experiment_event_groups (event_id, experiment_id, group_key)
       SELECT $4, experiment_id, group_key FROM assigned
       ON CONFLICT (event_id) DO NOTHING
     )
     SELECT experiment_id, group_key FROM known UNION ALL SELECT experiment_id, group_key FROM assigned`,
    [assignment.experimentId, assignment.shopperKey, assignment.group, assignment.eventId, assignment.at],
  );
  return { experimentId: rows[0]!.experiment_id, group: rows[0]!.group_key };
}

/** The group each event was processed in, for the event log. */
export async function findEventGroups(db: Queryable, eventIds: readonly string[]): Promise<Map<string, { experimentId: string; group: ExperimentGroupKey }>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await db.query<{ event_id: string; experiment_id: string; group_key: ExperimentGroupKey }>(
    'SELECT event_id, experiment_id, group_key FROM experiment_event_groups WHERE event_id = ANY($1)',
    [eventIds],
  );
  return new Map(rows.map((row) => [row.event_id, { experimentId: row.experiment_id, group: row.group_key }]));
}

export interface GroupCounts {
  group: ExperimentGroupKey;
  exposures: number;
  /** Shoppers who placed at least one credited order. */
  converted: number;
  orders: number;
}

export async function countGroups(db: Queryable, experimentId: string): Promise<GroupCounts[]> {
  const { rows } = await db.query<{ group_key: ExperimentGroupKey; exposures: number; converted: number; orders: number }>(
    `SELECT a.group_key, count(*)::int AS exposures,
            count(*) FILTER (WHERE o.orders > 0)::int AS converted,
            coalesce(sum(o.orders), 0)::int AS orders
       FROM experiment_assignments a
       LEFT JOIN LATERAL (SELECT count(*) AS orders FROM experiment_orders WHERE assignment_id = a.id) o ON true
      WHERE a.experiment_id = $1
      GROUP BY a.group_key`,
    [experimentId],
  );
  return rows.map((row) => ({ group: row.group_key, exposures: row.exposures, converted: row.converted, orders: row.orders }));
}

export interface GroupRevenue {
  group: ExperimentGroupKey;
  currency: string;
  total: number;
  /** Sum of each converted shopper's revenue squared, for the interval of revenue per exposure. */
  sumOfSquares: number;
}

/** Revenue per group and currency, with what the interval of revenue per exposure needs (per shopper). */
export async function sumGroupRevenue(db: Queryable, experimentId: string): Promise<GroupRevenue[]> {
  const { rows } = await db.query<{ group_key: ExperimentGroupKey; currency: string; total: string; sum_of_squares: string }>(
    `SELECT group_key, currency, sum(shopper_total)::text AS total, sum(shopper_total * shopper_total)::text AS sum_of_squares
       FROM (SELECT group_key, currency, assignment_id, sum(amount) AS shopper_total
               FROM experiment_orders WHERE experiment_id = $1 AND amount IS NOT NULL AND currency IS NOT NULL
              GROUP BY group_key, currency, assignment_id) per_shopper
      GROUP BY group_key, currency
      ORDER BY currency, group_key`,
    [experimentId],
  );
  return rows.map((row) => ({ group: row.group_key, currency: row.currency, total: Number(row.total), sumOfSquares: Number(row.sum_of_squares) }));
}

/**
 * Credits an order to the shopper's exposure in each of the owner's experiments where the
 * order came within `windowDays` after the shopper's last exposure (and not before their
 * first): once per order and experiment, whatever arrives again.
 */
export async function creditExperimentOrder(
  db: Queryable,
  order: { userId: string; shopperKey: string; orderKey: string; orderedAt: Date; windowDays: number; amount: string | null; currency: string | null },
): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO experiment_orders (experiment_id, order_key, assignment_id, group_key, amount, currency, ordered_at)
     SELECT a.experiment_id, $3, a.id, a.group_key, $6::numeric, $7, $4
       FROM experiment_assignments a JOIN flow_experiments x ON x.id = a.experiment_id
      WHERE x.user_id = $1 AND a.shopper_key = $2 AND a.first_exposed_at <= $4 AND a.last_exposed_at >= $5
     ON CONFLICT (experiment_id, order_key) DO NOTHING`,
    [order.userId, order.shopperKey, order.orderKey, order.orderedAt, new Date(order.orderedAt.getTime() - order.windowDays * DAY_MS), order.amount, order.currency],
  );
  return rowCount ?? 0;
}

/**
 * Retention (docs/decisions/0029-retention-and-account-deletion.md): the shoppers of the
 * owner's ended experiments whose last exposure is older than the owner's period are
 * forgotten as an erased shopper is: the key goes, the counts and results stay. A running
 * experiment keeps its keys, since a shopper keeps one group for its whole life. At most
 * `batchSize` rows a statement, so no lock is held for long.
 */
export async function forgetShoppersOfEndedExperiments(db: Queryable, userId: string, cutoff: Date, batchSize: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE experiment_assignments SET shopper_key = NULL
      WHERE id IN (
        SELECT a.id FROM experiment_assignments a JOIN flow_experiments x ON x.id = a.experiment_id
         WHERE x.user_id = $1 AND x.ended_at IS NOT NULL AND a.shopper_key IS NOT NULL AND a.last_exposed_at < $2
         LIMIT $3 FOR UPDATE OF a SKIP LOCKED)`,
    [userId, cutoff, batchSize],
  );
  return rowCount ?? 0;
}

/** An erased shopper: their assignments keep counting, without the key that finds them. */
export async function eraseShopperKeys(db: Queryable, userId: string, shopperKey: string | null): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE experiment_assignments a SET shopper_key = NULL
       FROM flow_experiments x
      WHERE x.id = a.experiment_id AND x.user_id = $1 AND a.shopper_key IS NOT NULL AND ($2::text IS NULL OR a.shopper_key = $2)`,
    [userId, shopperKey],
  );
  return rowCount ?? 0;
}
