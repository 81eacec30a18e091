import type { Queryable } from '../database/database.ts';

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
}

const generationColumns =
  'event_id, attempt, klaviyo_property, assistant_name, model, instructions, prompt, status, text, input_tokens, output_tokens, total_tokens, duration_ms, reused, error';

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
      ORDER BY attempt DESC
      LIMIT 1`,
    [request.eventId, request.attempt, request.klaviyoProperty, request.model, request.instructions, request.prompt],
  );
  return rows[0] ? toGeneration(rows[0]) : null;
}

/** Records (or, for a retried job, replaces) one assistant's outcome. */
export async function saveGeneration(db: Queryable, generation: GenerationRecord): Promise<void> {
  await db.query(
    `INSERT INTO event_generations (${generationColumns})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (event_id, attempt, klaviyo_property) DO UPDATE SET
       assistant_name = EXCLUDED.assistant_name, model = EXCLUDED.model, instructions = EXCLUDED.instructions,
       prompt = EXCLUDED.prompt, status = EXCLUDED.status, text = EXCLUDED.text,
       input_tokens = event_generations.input_tokens + EXCLUDED.input_tokens,
       output_tokens = event_generations.output_tokens + EXCLUDED.output_tokens,
       total_tokens = event_generations.total_tokens + EXCLUDED.total_tokens,
       duration_ms = EXCLUDED.duration_ms, reused = EXCLUDED.reused, error = EXCLUDED.error, created_at = now()`,
    [
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
    ],
  );
}
