import type { Queryable } from '../database/database.ts';
import type { TextChecksRecord } from '../../shared/text-checks/text-check-schemas.ts';
import { fromStoredChecks, toStoredChecks } from './stored-checks.ts';

/** One assistant's outcome for one attempt of an event. */
export interface GenerationRecord {
  eventId: string;
  attempt: number;
  klaviyoProperty: string;
  assistantName: string;
  model: string;
  instructions: string | null;
  prompt: string;
  status: 'succeeded' | 'failed';
  text: string | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  durationMs: number;
  reused: boolean;
  error: string | null;
  /** Of `inputTokens`, those served from OpenAI's prompt cache. */
  cachedInputTokens: number;
  /** The tier that served the call; null when no call was made. */
  serviceTier: string | null;
  /** This row's share of its call's price, in dollars. */
  costUsd: number;
  /** The model had no known price: `costUsd` is counted at the dearest known price. */
  costEstimated: boolean;
  /** The OpenAI call that wrote it; rows of one call (several assistants, one model) share it. */
  openaiCallId: string | null;
  /** Set when the prompt names nothing of the shopper: identical requests may reuse the text. */
  reuseKey: string | null;
  reusedFrom: 'earlier_attempt' | 'identical_request' | null;
  /** The checks before delivery; null until the text is checked (docs/decisions/0040-texts-checked-before-delivery.md). */
  checks: TextChecksRecord | null;
}

interface GenerationRow {
  event_id: string;
  attempt: number;
  klaviyo_property: string;
  assistant_name: string;
  model: string;
  instructions: string | null;
  prompt: string;
  status: 'succeeded' | 'failed';
  text: string | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  duration_ms: number;
  reused: boolean;
  error: string | null;
  cached_input_tokens: number;
  service_tier: string | null;
  cost_usd: string;
  cost_estimated: boolean;
  openai_call_id: string | null;
  reuse_key: string | null;
  reused_from: 'earlier_attempt' | 'identical_request' | null;
  checks: unknown;
}

const generationColumns =
  'event_id, attempt, klaviyo_property, assistant_name, model, instructions, prompt, status, text, input_tokens, output_tokens, total_tokens, duration_ms, reused, error, cached_input_tokens, service_tier, cost_usd, cost_estimated, openai_call_id, reuse_key, reused_from, checks';

function toGeneration(row: GenerationRow): GenerationRecord {
  return {
    eventId: row.event_id,
    attempt: row.attempt,
    klaviyoProperty: row.klaviyo_property,
    assistantName: row.assistant_name,
    model: row.model,
    instructions: row.instructions,
    prompt: row.prompt,
    status: row.status,
    text: row.text,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    totalTokens: row.total_tokens,
    durationMs: row.duration_ms,
    reused: row.reused,
    error: row.error,
    cachedInputTokens: row.cached_input_tokens,
    serviceTier: row.service_tier,
    costUsd: Number(row.cost_usd),
    costEstimated: row.cost_estimated,
    openaiCallId: row.openai_call_id,
    reuseKey: row.reuse_key,
    reusedFrom: row.reused_from,
    checks: row.checks === null ? null : fromStoredChecks(row.checks),
  };
}

export async function listGenerations(db: Queryable, eventId: string, attempt: number): Promise<GenerationRecord[]> {
  const { rows } = await db.query<GenerationRow>(
    `SELECT ${generationColumns} FROM event_generations WHERE event_id = $1 AND attempt = $2 ORDER BY created_at, klaviyo_property`,
    [eventId, attempt],
  );
  return rows.map(toGeneration);
}

/**
 * The latest text an earlier attempt generated for exactly this request, so that a
 * replay repeats the delivery without paying for the same text again.
 */
export async function findReusableGeneration(
  db: Queryable,
  request: { eventId: string; attempt: number; klaviyoProperty: string; model: string; instructions: string | null; prompt: string },
): Promise<GenerationRecord | null> {
  const { rows } = await db.query<GenerationRow>(
    `SELECT ${generationColumns} FROM event_generations
      WHERE event_id = $1 AND attempt < $2 AND klaviyo_property = $3 AND model = $4
        AND instructions IS NOT DISTINCT FROM $5 AND prompt = $6 AND status = 'succeeded'
        AND (checks IS NULL OR checks->>'delivered' IN ('written', 'rewritten'))
      ORDER BY attempt DESC
      LIMIT 1`,
    [request.eventId, request.attempt, request.klaviyoProperty, request.model, request.instructions, request.prompt],
  );
  return rows[0] ? toGeneration(rows[0]) : null;
}

/**
 * For each reuse key (which hashes flow, model, instructions and prompt), the newest text
 * any event of the flow got for exactly that request since `since`: the generation cache.
 * One statement for all of an event's assistants.
 */
export async function findCachedGenerations(db: Queryable, reuseKeys: string[], since: Date): Promise<Map<string, GenerationRecord>> {
  if (reuseKeys.length === 0) return new Map();
  const { rows } = await db.query<GenerationRow>(
    // Per key, the newest row by the reuse index and no other: a popular request has
    // thousands of rows, which DISTINCT ON read and sorted (bench:delivery halved).
    `SELECT newest.* FROM unnest($1::text[]) AS wanted (reuse_key)
      CROSS JOIN LATERAL (
        SELECT ${generationColumns} FROM event_generations
         WHERE event_generations.reuse_key = wanted.reuse_key AND status = 'succeeded' AND created_at >= $2
           AND (checks IS NULL OR checks->>'delivered' IN ('written', 'rewritten'))
         ORDER BY created_at DESC
         LIMIT 1) AS newest`,
    [[...new Set(reuseKeys)], since],
  );
  return new Map(rows.map((row) => [row.reuse_key!, toGeneration(row)]));
}

/** How many values `saveGenerations` writes a row: the record's columns, then created_at. */
const savedColumnCount = generationColumns.split(',').length + 1;

/**
 * Records (or, for a retried job, replaces) assistants' outcomes, stamped with the app's
 * clock (the generation cache's window is kept by it). The rows of one event go in one
 * statement: each statement is a round trip and a socket write, and under a backlog a
 * worker's time goes mostly to those.
 */
export async function saveGenerations(db: Queryable, many: GenerationRecord[], at: Date): Promise<void> {
  // One row per key, the last as saving them one by one would leave it: a statement's
  // ON CONFLICT may not update a row twice.
  const generations = [...new Map(many.map((generation) => [`${generation.eventId}\u0000${generation.attempt}\u0000${generation.klaviyoProperty}`, generation])).values()];
  if (generations.length === 0) return;
  const rows = generations.map(
    (_, row) => `(${Array.from({ length: savedColumnCount }, (_, column) => `$${row * savedColumnCount + column + 1}`).join(', ')})`,
  );
  await db.query(
    `INSERT INTO event_generations (${generationColumns}, created_at)
     VALUES ${rows.join(', ')}
     ON CONFLICT (event_id, attempt, klaviyo_property) DO UPDATE SET
       assistant_name = EXCLUDED.assistant_name, model = EXCLUDED.model, instructions = EXCLUDED.instructions,
       prompt = EXCLUDED.prompt, status = EXCLUDED.status, text = EXCLUDED.text,
       input_tokens = event_generations.input_tokens + EXCLUDED.input_tokens,
       output_tokens = event_generations.output_tokens + EXCLUDED.output_tokens,
       total_tokens = event_generations.total_tokens + EXCLUDED.total_tokens,
       cached_input_tokens = event_generations.cached_input_tokens + EXCLUDED.cached_input_tokens,
       cost_usd = event_generations.cost_usd + EXCLUDED.cost_usd,
       cost_estimated = event_generations.cost_estimated OR EXCLUDED.cost_estimated,
       duration_ms = EXCLUDED.duration_ms, reused = EXCLUDED.reused, error = EXCLUDED.error,
       service_tier = EXCLUDED.service_tier, openai_call_id = EXCLUDED.openai_call_id,
       reuse_key = EXCLUDED.reuse_key, reused_from = EXCLUDED.reused_from, checks = EXCLUDED.checks, created_at = EXCLUDED.created_at`,
    generations.flatMap((generation) => [
      generation.eventId,
      generation.attempt,
      generation.klaviyoProperty,
      generation.assistantName,
      generation.model,
      generation.instructions,
      generation.prompt,
      generation.status,
      generation.text,
      generation.inputTokens,
      generation.outputTokens,
      generation.totalTokens,
      generation.durationMs,
      generation.reused,
      generation.error,
      generation.cachedInputTokens,
      generation.serviceTier,
      generation.costUsd,
      generation.costEstimated,
      generation.openaiCallId,
      generation.reuseKey,
      generation.reusedFrom,
      generation.checks === null ? null : JSON.stringify(toStoredChecks(generation.checks)),
      at,
    ]),
  );
}

/**
 * Stores what the checks made of texts already saved: the text that goes out (a fallback
 * replaces the one written) and the checks. One statement for all of an event's texts;
 * the tokens and cost stay as they are.
 */
export async function saveGenerationChecks(db: Queryable, generations: GenerationRecord[]): Promise<void> {
  if (generations.length === 0) return;
  await db.query(
    `UPDATE event_generations AS generation
        SET text = checked.text, checks = checked.checks
       FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::jsonb[]) AS checked (event_id, attempt, klaviyo_property, text, checks)
      WHERE generation.event_id = checked.event_id AND generation.attempt = checked.attempt AND generation.klaviyo_property = checked.klaviyo_property`,
    [
      generations.map((generation) => generation.eventId),
      generations.map((generation) => generation.attempt),
      generations.map((generation) => generation.klaviyoProperty),
      generations.map((generation) => generation.text),
      generations.map((generation) => (generation.checks === null ? null : JSON.stringify(toStoredChecks(generation.checks)))),
    ],
  );
}

/**
 * The owner's own words for texts in the review list: each named property's text is
 * replaced and its checks say it was edited (the refusals and verdicts before stay).
 * Texts the flow withholds ("nothing") or that have no text are left alone. The
 * properties changed.
 */
export async function replaceTextsByOwner(db: Queryable, eventId: string, attempt: number, texts: Record<string, string>): Promise<string[]> {
  const properties = Object.keys(texts);
  if (properties.length === 0) return [];
  const { rows } = await db.query<{ klaviyo_property: string }>(
    `UPDATE event_generations AS generation
        SET text = edited.text,
            checks = jsonb_set(coalesce(generation.checks, '{"stage": "done", "verdicts": ""}'::jsonb), '{delivered}', '"edited"')
       FROM unnest($3::text[], $4::text[]) AS edited (klaviyo_property, text)
      WHERE generation.event_id = $1 AND generation.attempt = $2 AND generation.klaviyo_property = edited.klaviyo_property
        AND generation.status = 'succeeded' AND generation.text IS NOT NULL
        AND coalesce(generation.checks->>'delivered', '') <> 'nothing'
      RETURNING generation.klaviyo_property`,
    [eventId, attempt, properties, properties.map((property) => texts[property])],
  );
  return rows.map((row) => row.klaviyo_property);
}

/** The texts of many events' current attempts at once (the review list), by event. */
export async function listGenerationsOfEvents(db: Queryable, events: ReadonlyArray<{ eventId: string; attempt: number }>): Promise<Map<string, GenerationRecord[]>> {
  const found = new Map<string, GenerationRecord[]>();
  if (events.length === 0) return found;
  const { rows } = await db.query<GenerationRow>(
    `SELECT ${generationColumns.split(', ').map((column) => `generation.${column}`).join(', ')}
       FROM unnest($1::text[], $2::int[]) AS wanted (event_id, attempt)
       JOIN event_generations AS generation ON generation.event_id = wanted.event_id AND generation.attempt = wanted.attempt
      ORDER BY generation.created_at, generation.klaviyo_property`,
    [events.map((event) => event.eventId), events.map((event) => event.attempt)],
  );
  for (const row of rows) found.set(row.event_id, [...(found.get(row.event_id) ?? []), toGeneration(row)]);
  return found;
}

/** How many recent prompts the context cost is read from: enough for a steady figure, few enough to read on each page view. */
export const CONTEXT_COST_SAMPLE = 500;

/** The owner's most recent written prompts since `since` (newest first), with their flow and model: what the context cost is measured on. */
export async function listRecentPrompts(
  db: Queryable,
  userId: string,
  since: Date,
): Promise<Array<{ flowId: string; eventId: string; model: string; prompt: string }>> {
  const { rows } = await db.query<{ flow_id: string; event_id: string; model: string; prompt: string }>(
    `SELECT e.flow_id, g.event_id, g.model, g.prompt FROM event_generations g JOIN events e ON e.id = g.event_id
      WHERE e.user_id = $1 AND g.created_at >= $2 AND g.status = 'succeeded' AND NOT g.reused
      ORDER BY g.created_at DESC LIMIT ${CONTEXT_COST_SAMPLE}`,
    [userId, since],
  );
  return rows.map((row) => ({ flowId: row.flow_id, eventId: row.event_id, model: row.model, prompt: row.prompt }));
}
