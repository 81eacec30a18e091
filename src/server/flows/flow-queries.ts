import type { Queryable } from '../database/database.ts';
import { flowTypes, flowHasWait, type FlowType } from '../../shared/flows/flow-types.ts';
import { defaultRecommendationSettings, recommendationSettingsSchema, storedAssistantSchema, type Assistant, type RecommendationSettings } from '../../shared/flows/flow-schemas.ts';
import { textRulesSchema, type TextRules } from '../../shared/flows/text-rules-schemas.ts';
import { newFlowId } from './webhook-url.ts';
import { defaultFlowValues } from './flow-defaults.ts';

/** A flow as the engine and the routes read it. */
export interface FlowRecord {
  /** The flow's id, for the app's own references; its URL key was equal to it until first rotated. */
  id: string;
  userId: string;
  flowType: FlowType;
  isActive: boolean;
  /** The stored URL; null until the owner first saves the flow. */
  webhookUrl: string | null;
  assistants: Assistant[];
  /** Minutes to wait before generating; null for post purchase, which has no wait. */
  waitMinutes: number | null;
  klaviyoEventName: string | null;
  /** The secret path segment of the webhook URL (rotatable; equal to `id` until first rotated). */
  webhookKey: string;
  /** The key replaced by the last rotation, still accepted until `previousWebhookKeyExpiresAt`. */
  previousWebhookKey: string | null;
  previousWebhookKeyExpiresAt: Date | null;
  /** The browsing pixel's public key (/api/pixel/{pixelKey}); tells nothing about `webhookKey`. */
  pixelKey: string;
  /** At most one generation per shopper in this many hours; 0 = no such limit. */
  shopperCooldownHours: number;
  /** At most this many events generate per day (UTC) in this flow. */
  dailyGenerationCap: number;
  /** Use OpenAI's flex tier (cheaper, slower) when the flow waits 15 minutes or more. */
  useFlexTier: boolean;
  /** An identical request that names no shopper reuses a text from this many hours back; 0 = never. */
  reuseWindowHours: number;
  /** Dollars a day (UTC) the flow may spend on OpenAI; null = no budget. */
  dailyBudgetUsd: number | null;
  /** Past the budget: events wait for the next day, or are skipped. */
  overBudget: 'wait' | 'skip';
  /** What the flow's texts may say, checked before delivery. */
  textRules: TextRules;
  recommendations: RecommendationSettings;
  updatedAt: Date;
}

interface FlowRow {
  id: string;
  user_id: string;
  flow_type: FlowType;
  is_active: boolean;
  webhook_url: string | null;
  assistants: unknown;
  wait_minutes: number;
  klaviyo_event_name: string | null;
  webhook_key: string;
  previous_webhook_key: string | null;
  previous_webhook_key_expires_at: Date | null;
  pixel_key: string;
  shopper_cooldown_hours: number;
  daily_generation_cap: number;
  use_flex_tier: boolean;
  reuse_window_hours: number;
  /** numeric arrives as a string from pg. */
  daily_budget_usd: string | null;
  over_budget: 'wait' | 'skip';
  text_rules: unknown;
  recommendations: unknown;
  updated_at: Date;
}

const flowColumns =
  'id, user_id, flow_type, is_active, webhook_url, assistants, wait_minutes, klaviyo_event_name, webhook_key, previous_webhook_key, previous_webhook_key_expires_at, pixel_key, shopper_cooldown_hours, daily_generation_cap, use_flex_tier, reuse_window_hours, daily_budget_usd, over_budget, text_rules, recommendations, updated_at';

function toFlowRecord(row: FlowRow): FlowRecord {
  return {
    id: row.id,
    userId: row.user_id,
    flowType: row.flow_type,
    isActive: row.is_active,
    webhookUrl: row.webhook_url,
    assistants: storedAssistantSchema.array().parse(row.assistants),
    waitMinutes: flowHasWait(row.flow_type) ? row.wait_minutes : null,
    klaviyoEventName: row.klaviyo_event_name,
    webhookKey: row.webhook_key,
    previousWebhookKey: row.previous_webhook_key,
    previousWebhookKeyExpiresAt: row.previous_webhook_key_expires_at,
    pixelKey: row.pixel_key,
    shopperCooldownHours: row.shopper_cooldown_hours,
    dailyGenerationCap: row.daily_generation_cap,
    useFlexTier: row.use_flex_tier,
    reuseWindowHours: row.reuse_window_hours,
    dailyBudgetUsd: row.daily_budget_usd === null ? null : Number(row.daily_budget_usd),
    overBudget: row.over_budget,
    textRules: textRulesSchema.parse(row.text_rules),
    // A setting that no longer parses (a limit lowered since) falls back to the defaults rather than failing the flow.
    recommendations: recommendationSettingsSchema.safeParse(row.recommendations).data ?? defaultRecommendationSettings,
    updatedAt: row.updated_at,
  };
}

const byFlowTypeOrder = (a: FlowRecord, b: FlowRecord) => flowTypes.indexOf(a.flowType) - flowTypes.indexOf(b.flowType);

/** The flow a webhook URL names, whoever owns it; null when no flow has that id. */
export async function findFlowById(db: Queryable, flowId: string): Promise<FlowRecord | null> {
  const { rows } = await db.query<FlowRow>(`SELECT ${flowColumns} FROM flows WHERE id = $1`, [flowId]);
  return rows[0] ? toFlowRecord(rows[0]) : null;
}

/**
 * The flow a webhook URL names by its key: the current key, or the key replaced by the
 * last rotation while its grace period lasts (`now` is the app's clock).
 */
export async function findFlowByWebhookKey(db: Queryable, key: string, now: Date): Promise<FlowRecord | null> {
  const { rows } = await db.query<FlowRow>(
    `SELECT ${flowColumns} FROM flows
      WHERE webhook_key = $1
         OR (previous_webhook_key = $1 AND previous_webhook_key_expires_at > $2)
      LIMIT 1`,
    [key, now],
  );
  return rows[0] ? toFlowRecord(rows[0]) : null;
}

/** The flow whose browsing pixel has this public key. */
export async function findFlowByPixelKey(db: Queryable, pixelKey: string): Promise<FlowRecord | null> {
  const { rows } = await db.query<FlowRow>(`SELECT ${flowColumns} FROM flows WHERE pixel_key = $1`, [pixelKey]);
  return rows[0] ? toFlowRecord(rows[0]) : null;
}

/**
 * The owner's flows in the order of docs/product/specification.md §1 (none until they are
 * initialised).
 */
export async function listFlowsForUser(db: Queryable, userId: string): Promise<FlowRecord[]> {
  const { rows } = await db.query<FlowRow>(`SELECT ${flowColumns} FROM flows WHERE user_id = $1`, [userId]);
  return rows.map(toFlowRecord).sort(byFlowTypeOrder);
}

/** Locks every flow of the owner until the caller's transaction ends. */
export async function lockFlowsForUser(db: Queryable, userId: string): Promise<void> {
  await db.query('SELECT id FROM flows WHERE user_id = $1 FOR UPDATE', [userId]);
}

/** One flow of the owner; `forUpdate` locks it until the caller's transaction ends. */
export async function findFlowForUser(
  db: Queryable,
  userId: string,
  flowType: FlowType,
  options: { forUpdate?: boolean } = {},
): Promise<FlowRecord | null> {
  const { rows } = await db.query<FlowRow>(
    `SELECT ${flowColumns} FROM flows WHERE user_id = $1 AND flow_type = $2${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [userId, flowType],
  );
  return rows[0] ? toFlowRecord(rows[0]) : null;
}

/**
 * Creates each of the four flows the owner does not have yet, with the defaults of
 * docs/product/specification.md §3, and returns how many it created. Safe to run
 * concurrently: a flow type someone else just created is skipped. A (practically
 * impossible) id collision is retried with a fresh id rather than failing the owner's
 * request.
 */
export async function createMissingFlows(db: Queryable, userId: string, newId: () => string = newFlowId): Promise<number> {
  let created = 0;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const existing = new Set((await listFlowsForUser(db, userId)).map((flow) => flow.flowType));
    const missing = flowTypes.filter((flowType) => !existing.has(flowType));
    if (missing.length === 0) return created;
    for (const flowType of missing) {
      const defaults = defaultFlowValues();
      const result = await db.query(
        `INSERT INTO flows (id, user_id, flow_type, is_active, webhook_url, assistants, wait_minutes, klaviyo_event_name, webhook_key)
         VALUES ($1, $2, $3, $4, NULL, $5::jsonb, $6, NULL, $1)
         ON CONFLICT DO NOTHING`,
        [newId(), userId, flowType, defaults.isActive, JSON.stringify(defaults.assistants), defaults.waitMinutes],
      );
      created += result.rowCount ?? 0;
    }
  }
  throw new Error('Could not create the default flows: flow ids kept colliding');
}

/**
 * Stores the owner's configuration of one flow. A null `waitMinutes`, cap, flex, reuse or
 * over-budget value keeps the stored one (the owner's request left it out); the budget says
 * explicitly whether to keep it, since null is a value (no budget).
 */
export async function saveFlowConfiguration(
  db: Queryable,
  userId: string,
  flowType: FlowType,
  values: {
    isActive: boolean;
    webhookUrl: string;
    assistants: Assistant[];
    waitMinutes: number | null;
    klaviyoEventName: string | null;
    shopperCooldownHours: number | null;
    dailyGenerationCap: number | null;
    useFlexTier: boolean | null;
    reuseWindowHours: number | null;
    dailyBudgetUsd: { keep: true } | { keep: false; value: number | null };
    overBudget: 'wait' | 'skip' | null;
    /** Null keeps the stored rules. */
    textRules: TextRules | null;
    /** Null keeps the stored settings. */
    recommendations: RecommendationSettings | null;
  },
): Promise<FlowRecord | null> {
  const { rows } = await db.query<FlowRow>(
    `UPDATE flows
        SET is_active = $3, webhook_url = $4, assistants = $5::jsonb,
            wait_minutes = COALESCE($6, wait_minutes), klaviyo_event_name = $7,
            shopper_cooldown_hours = COALESCE($8, shopper_cooldown_hours),
            daily_generation_cap = COALESCE($9, daily_generation_cap),
            use_flex_tier = COALESCE($10, use_flex_tier),
            reuse_window_hours = COALESCE($11, reuse_window_hours),
            daily_budget_usd = CASE WHEN $12 THEN daily_budget_usd ELSE $13::numeric END,
            over_budget = COALESCE($14, over_budget),
            text_rules = COALESCE($15::jsonb, text_rules),
            recommendations = COALESCE($16::jsonb, recommendations),
            updated_at = now()
      WHERE user_id = $1 AND flow_type = $2
      RETURNING ${flowColumns}`,
    [
      userId,
      flowType,
      values.isActive,
      values.webhookUrl,
      JSON.stringify(values.assistants),
      values.waitMinutes,
      values.klaviyoEventName,
      values.shopperCooldownHours,
      values.dailyGenerationCap,
      values.useFlexTier,
      values.reuseWindowHours,
      values.dailyBudgetUsd.keep,
      values.dailyBudgetUsd.keep ? null : values.dailyBudgetUsd.value,
      values.overBudget,
      values.textRules === null ? null : JSON.stringify(values.textRules),
      values.recommendations === null ? null : JSON.stringify(values.recommendations),
    ],
  );
  return rows[0] ? toFlowRecord(rows[0]) : null;
}

/**
 * Gives the owner's flow a new URL key. The current key becomes the previous one, accepted
 * until `previousKeyExpiresAt` (null: refused from now on); a previous key still in its
 * grace period is dropped, so at most two keys ever work. `webhookUrlFor` makes the
 * stored URL from the new key; a flow never saved keeps no URL. Null when the owner has
 * no such flow.
 */
export async function rotateWebhookKey(
  db: Queryable,
  userId: string,
  flowType: FlowType,
  values: { newKey: string; previousKeyExpiresAt: Date | null; webhookUrlFor: (key: string) => string },
): Promise<FlowRecord | null> {
  const { rows } = await db.query<FlowRow>(
    `UPDATE flows
        SET previous_webhook_key = webhook_key,
            previous_webhook_key_expires_at = $4,
            webhook_key = $3,
            webhook_url = CASE WHEN webhook_url IS NULL THEN NULL ELSE $5 END,
            updated_at = now()
      WHERE user_id = $1 AND flow_type = $2
      RETURNING ${flowColumns}`,
    [userId, flowType, values.newKey, values.previousKeyExpiresAt, values.webhookUrlFor(values.newKey)],
  );
  return rows[0] ? toFlowRecord(rows[0]) : null;
}

/** Stores a new webhook URL for one of the owner's flows. */
export async function replaceWebhookUrl(db: Queryable, userId: string, flowId: string, webhookUrl: string): Promise<void> {
  await db.query('UPDATE flows SET webhook_url = $3, updated_at = now() WHERE user_id = $1 AND id = $2', [userId, flowId, webhookUrl]);
}

/**
 * Replaces the prompt of each assistant named in `prompts` (by Klaviyo property), keeping
 * everything else of the flow: an experiment's winner becoming the flow's prompts.
 */
export async function saveAssistantPrompts(db: Queryable, flowId: string, prompts: Record<string, string>): Promise<void> {
  await db.query(
    `UPDATE flows
        SET assistants = (SELECT coalesce(jsonb_agg(CASE WHEN $2::jsonb ? (assistant->>'klaviyo_property')
                                                        THEN jsonb_set(assistant, '{prompt_template}', $2::jsonb -> (assistant->>'klaviyo_property'))
                                                        ELSE assistant END ORDER BY position), '[]'::jsonb)
                            FROM jsonb_array_elements(assistants) WITH ORDINALITY AS listed(assistant, position)),
            updated_at = now()
      WHERE id = $1`,
    [flowId, JSON.stringify(prompts)],
  );
}
