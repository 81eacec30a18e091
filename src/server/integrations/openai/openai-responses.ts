import { z } from 'zod';
import { ServiceError, withoutSecret, type ServiceErrorCode, type ServiceErrorKind } from '../service-error.ts';
import { callService, type ServiceAnswer } from '../service-http.ts';

/**
 * One call of OpenAI's Responses API (docs/product/service-contracts.md §2):
 * `POST {base}/responses` with `store: false` and a bounded output. The text is collected from
 * every `message` item's `output_text` parts, wherever they sit in `output[]` (reasoning
 * items may come first). Only a `completed` answer gives text: an `incomplete` one may
 * carry the start of a text (cut off at `max_output_tokens` or by the content filter),
 * which is never passed on as if it were whole; any other status fails the call with its
 * reason.
 */
export interface ResponsesRequest {
  model: string;
  instructions: string;
  input: string;
  maxOutputTokens: number;
  /** Routes requests that share a prefix to the same cache (one per flow). */
  promptCacheKey?: string;
  /** 'flex': cheaper and slower, and may be refused with 429 resource_unavailable. */
  serviceTier?: 'flex';
  /** Structured Outputs: the answer is JSON text in this schema (strict). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
}

export interface ResponsesResult {
  /** The model's whole text; null when it answered without any, or was cut off. */
  text: string | null;
  /** Why a completed answer has no text, when OpenAI says (a refusal). */
  noTextReason: string | null;
  /**
   * OpenAI's `incomplete_details.reason` when the answer stopped before it was complete
   * ("max_output_tokens", "content_filter"): whatever text it carried is dropped.
   */
  incomplete: string | null;
  model: string | null;
  /** The tier OpenAI says served the request ('default', 'flex', …); null when it does not say. */
  serviceTier: string | null;
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number; totalTokens: number };
}

/**
 * A Responses answer that ended without a usable text (status `failed`, or one a finished
 * call never has) but still reports the tokens OpenAI billed for it: the caller counts
 * them in the flow's spend like any other call's, so a budget stops where the bill does.
 */
export class OpenAiBilledFailure extends ServiceError {
  readonly usage: ResponsesResult['usage'];
  readonly serviceTier: string | null;

  constructor(
    code: ServiceErrorCode,
    message: string,
    details: { kind?: ServiceErrorKind; status: number },
    billed: { usage: ResponsesResult['usage']; serviceTier: string | null },
  ) {
    super('openai', code, message, details);
    this.name = 'OpenAiBilledFailure';
    this.usage = billed.usage;
    this.serviceTier = billed.serviceTier;
  }
}

export interface OpenAiConnection {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** The app's clock, for a Retry-After given as a date. */
  now?: () => Date;
}

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const outputItemSchema = z.looseObject({ type: z.string(), status: z.string().nullish(), content: z.array(contentPartSchema).optional() });
const responseSchema = z.looseObject({
  id: z.string().optional(),
  status: z.string().nullish(),
  model: z.string().nullish(),
  output: z.array(outputItemSchema).nullish(),
  service_tier: z.string().nullish(),
  usage: z
    .looseObject({
      input_tokens: z.number().int().nullish(),
      input_tokens_details: z.looseObject({ cached_tokens: z.number().int().nullish() }).nullish(),
      output_tokens: z.number().int().nullish(),
      total_tokens: z.number().int().nullish(),
    })
    .nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ message: z.string().nullish(), code: z.string().nullish() }).nullish(),
});
const errorBodySchema = z.looseObject({
  error: z.looseObject({ message: z.string().nullish(), type: z.string().nullish(), code: z.string().nullish() }).nullish(),
});

export async function createResponse(
  connection: OpenAiConnection,
  request: ResponsesRequest,
  signal?: AbortSignal,
): Promise<ResponsesResult> {
  const call = {
    url: `${connection.baseUrl}/responses`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${connection.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      model: request.model,
      instructions: request.instructions,
      input: request.input,
      max_output_tokens: request.maxOutputTokens,
      store: false,
      ...(request.promptCacheKey ? { prompt_cache_key: request.promptCacheKey } : {}),
      ...(request.serviceTier ? { service_tier: request.serviceTier } : {}),
      ...(request.jsonSchema ? { text: { format: { type: 'json_schema', name: request.jsonSchema.name, strict: true, schema: request.jsonSchema.schema } } } : {}),
    }),
    timeoutMs: connection.timeoutMs,
    signal,
    now: connection.now,
  };
  return callService('openai', call, async (answer) => {
    if (!answer.ok) throw openAiErrorOf(answer, await answer.text(), connection.apiKey);
    return resultOf(answer, await answer.json({ message: 'the answer was not JSON' }), connection.apiKey);
  });
}

function resultOf(answer: ServiceAnswer, json: unknown, apiKey: string): ResponsesResult {
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ServiceError('openai', 'invalid_response', 'the answer did not have the Responses API shape', { kind: 'permanent', status: answer.status });
  }
  const body = parsed.data;
  const usage = usageOf(body.usage);
  if (body.status === 'failed') {
    // OpenAI's own trouble is worth another try; anything else (a prompt it will not take) fails the same way again.
    const message = withoutSecret(body.error?.message ?? 'the response failed', apiKey);
    const code = !body.error?.code || retryableFailureCodes.has(body.error.code) ? 'server_error' : 'bad_request';
    throw new OpenAiBilledFailure(code, message, { status: answer.status }, { usage, serviceTier: body.service_tier ?? null });
  }
  if (body.status !== 'completed' && body.status !== 'incomplete') {
    // queued, in_progress, cancelled, or none at all: a call that is not run in the background
    // never ends so. Its text, if any, is not a finished answer.
    throw new OpenAiBilledFailure(
      'invalid_response',
      `answered with status "${body.status ?? 'none'}", which a finished call never has, so its text was not used`,
      { kind: 'permanent', status: answer.status },
      { usage, serviceTier: body.service_tier ?? null },
    );
  }
  const texts: string[] = [];
  const refusals: string[] = [];
  let messageCutOff = false;
  for (const item of body.output ?? []) {
    if (item.type !== 'message') continue;
    if (item.status === 'incomplete') messageCutOff = true;
    for (const part of item.content ?? []) {
      if (part.type === 'output_text' && part.text) texts.push(part.text);
      if (part.type === 'refusal' && part.refusal) refusals.push(part.refusal);
    }
  }
  const text = texts.join('').trim();
  const incomplete = body.status === 'incomplete' || messageCutOff ? (body.incomplete_details?.reason ?? 'unknown') : null;
  const whole = incomplete ? '' : text;
  return {
    text: whole || null,
    noTextReason: whole ? null : refusals.length > 0 ? `refused: ${refusals.join(' ')}` : incomplete ? `incomplete: ${incomplete}` : null,
    incomplete,
    model: body.model ?? null,
    serviceTier: body.service_tier ?? null,
    usage,
  };
}

function usageOf(usage: z.infer<typeof responseSchema>['usage']): ResponsesResult['usage'] {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    cachedInputTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? (usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0),
  };
}

/** ResponseError codes that say OpenAI's side failed, not the request. */
const retryableFailureCodes = new Set(['server_error', 'rate_limit_exceeded', 'vector_store_timeout']);

/**
 * 429 means two things at OpenAI: a rate limit (wait and retry) or an exhausted quota
 * (`insufficient_quota`: retrying only burns time; the owner must act).
 */
export function openAiErrorOf(answer: ServiceAnswer, bodyText: string, apiKey: string): ServiceError {
  let error: z.infer<typeof errorBodySchema>['error'] = null;
  try {
    error = errorBodySchema.parse(JSON.parse(bodyText)).error ?? null;
  } catch {
    error = null;
  }
  const message = withoutSecret(error?.message || `HTTP ${answer.status}`, apiKey);
  if (error?.code === 'insufficient_quota' || error?.type === 'insufficient_quota') {
    return new ServiceError('openai', 'insufficient_quota', message, { status: answer.status });
  }
  if (error?.code === 'resource_unavailable') return answer.error(message, 'resource_unavailable');
  return answer.error(message);
}
