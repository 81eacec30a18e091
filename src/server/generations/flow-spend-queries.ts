import type { Queryable } from '../database/database.ts';

/**
 * What each flow spent on OpenAI per day (UTC), in `flow_daily_spend`: added to as each
 * call's answer arrives (text-generation.ts), read by the budget check and the dashboard.
 */
export interface CallSpend {
  flowId: string;
  /** When the answer arrived, by the app's clock; its UTC day is the row. */
  at: Date;
  costUsd: number;
  /** The model had no known price: the cost is an estimate. */
  estimated: boolean;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

export interface DailySpend {
  day: string;
  costUsd: number;
  calls: number;
  /** Of `calls`, those to a model without a known price, counted at the dearest known price. */
  estimatedCalls: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

/** The UTC day of `at`, as the table keys it (YYYY-MM-DD). */
export function spendDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Adds one call to the flow's day. Every call of a flow updates the same row, so the row
 * stays locked until the commit: the commit does not wait for its WAL flush
 * (synchronous_commit off for this transaction only), or a busy flow's calls would queue
 * behind each other's flushes (docs/decisions/0033-steady-for-hours.md). The caller's
 * next write, the texts themselves, commits synchronously, and its flush carries this
 * commit too: WAL is written in order, so a crash never keeps the texts without their cost.
 */
export async function recordFlowSpend(db: Queryable, spend: CallSpend): Promise<void> {
  await db.query(
    `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true))
     INSERT INTO flow_daily_spend (flow_id, day, cost_usd, calls, estimated_calls, input_tokens, cached_input_tokens, output_tokens)
     SELECT $1, $2::date, $3, 1, $7, $4, $5, $6 FROM unflushed
     ON CONFLICT (flow_id, day) DO UPDATE SET
       cost_usd = flow_daily_spend.cost_usd + EXCLUDED.cost_usd,
       calls = flow_daily_spend.calls + 1,
       estimated_calls = flow_daily_spend.estimated_calls + EXCLUDED.estimated_calls,
       input_tokens = flow_daily_spend.input_tokens + EXCLUDED.input_tokens,
       cached_input_tokens = flow_daily_spend.cached_input_tokens + EXCLUDED.cached_input_tokens,
       output_tokens = flow_daily_spend.output_tokens + EXCLUDED.output_tokens`,
    [spend.flowId, spendDay(spend.at), spend.costUsd, spend.inputTokens, spend.cachedInputTokens, spend.outputTokens, spend.estimated ? 1 : 0],
  );
}

interface SpendRow {
  day: string;
  cost_usd: string;
  calls: number;
  estimated_calls: number;
  input_tokens: string;
  cached_input_tokens: string;
  output_tokens: string;
}

function toSpend(row: SpendRow): DailySpend {
  return {
    day: row.day,
    costUsd: Number(row.cost_usd),
    calls: row.calls,
    estimatedCalls: row.estimated_calls,
    inputTokens: Number(row.input_tokens),
    cachedInputTokens: Number(row.cached_input_tokens),
    outputTokens: Number(row.output_tokens),
  };
}

/** The flow's spend on the UTC day of `at`; zeros when it spent nothing. */
export async function findFlowSpend(db: Queryable, flowId: string, at: Date): Promise<DailySpend> {
  const day = spendDay(at);
  const { rows } = await db.query<SpendRow>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, cost_usd, calls, estimated_calls, input_tokens, cached_input_tokens, output_tokens
       FROM flow_daily_spend WHERE flow_id = $1 AND day = $2::date`,
    [flowId, day],
  );
  return rows[0] ? toSpend(rows[0]) : { day, costUsd: 0, calls: 0, estimatedCalls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
}

export interface FlowDaySpend extends DailySpend {
  flowId: string;
  flowType: string;
}

/** Every flow of the owner's spend per day from `fromDay` (YYYY-MM-DD, UTC) on; days without spend are absent. */
export async function listOwnerSpend(db: Queryable, userId: string, fromDay: string): Promise<FlowDaySpend[]> {
  const { rows } = await db.query<SpendRow & { flow_id: string; flow_type: string }>(
    `SELECT s.flow_id, f.flow_type, to_char(s.day, 'YYYY-MM-DD') AS day, s.cost_usd, s.calls, s.estimated_calls, s.input_tokens, s.cached_input_tokens, s.output_tokens
       FROM flow_daily_spend s JOIN flows f ON f.id = s.flow_id
      WHERE f.user_id = $1 AND s.day >= $2::date
      ORDER BY s.day`,
    [userId, fromDay],
  );
  return rows.map((row) => ({ ...toSpend(row), flowId: row.flow_id, flowType: row.flow_type }));
}
