import { z } from 'zod';
import {
  ServiceCallError,
  codeForStatus,
  fetchWithTimeout,
  isRetryableStatus,
  parseRetryAfter,
  withoutSecret,
} from '../../engine/service-call-error.ts';

/**
 * One call of OpenAI's Responses API (INTEGRATIONS.md): `POST {base}/responses` with
 * `store: false` and a bounded output. The text is collected from every `message` item's
 * `output_text` parts, wherever they sit in `output[]` (reasoning items may come first).
 */
export interface ResponsesRequest {
  model: string;
  instructions: string;
  input: string;
  maxOutputTokens: number;
}

export interface ResponsesResult {
  /** The model's text; null when it answered without any. */
  text: string | null;
  /** Why there is no text, when OpenAI says (e.g. "max_output_tokens", a refusal). */
  noTextReason: string | null;
  model: string | null;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

export interface OpenAiConnection {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const outputItemSchema = z.looseObject({ type: z.string(), content: z.array(contentPartSchema).optional() });
const responseSchema = z.looseObject({
  id: z.string().optional(),
  status: z.string().nullish(),
  model: z.string().nullish(),
  output: z.array(outputItemSchema).nullish(),
  usage: z
    .looseObject({ input_tokens: z.number().int().nullish(), output_tokens: z.number().int().nullish(), total_tokens: z.number().int().nullish() })
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
  const response = await fetchWithTimeout(
    'openai',
    `${connection.baseUrl}/responses`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${connection.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        model: request.model,
        instructions: request.instructions,
        input: request.input,
        max_output_tokens: request.maxOutputTokens,
        store: false,
      }),
    },
    connection.timeoutMs,
    signal,
  );
  const bodyText = await response.text().catch(() => '');
  if (!response.ok) throw errorFromAnswer(response, bodyText, connection.apiKey);

  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    throw new ServiceCallError('openai', 'invalid_response', 'the answer was not JSON', { retryable: true, status: response.status });
  }
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ServiceCallError('openai', 'invalid_response', 'the answer did not have the Responses API shape', { retryable: false, status: response.status });
  }
  const body = parsed.data;
  if (body.status === 'failed') {
    throw new ServiceCallError('openai', 'server_error', withoutSecret(body.error?.message ?? 'the response failed', connection.apiKey), {
      retryable: true,
      status: response.status,
    });
  }
  const texts: string[] = [];
  const refusals: string[] = [];
  for (const item of body.output ?? []) {
    if (item.type !== 'message') continue;
    for (const part of item.content ?? []) {
      if (part.type === 'output_text' && part.text) texts.push(part.text);
      if (part.type === 'refusal' && part.refusal) refusals.push(part.refusal);
    }
  }
  const text = texts.join('').trim();
  const incomplete = body.incomplete_details?.reason ? `incomplete: ${body.incomplete_details.reason}` : null;
  return {
    text: text || null,
    noTextReason: text ? null : refusals.length > 0 ? `refused: ${refusals.join(' ')}` : incomplete,
    model: body.model ?? null,
    usage: {
      inputTokens: body.usage?.input_tokens ?? 0,
      outputTokens: body.usage?.output_tokens ?? 0,
      totalTokens: body.usage?.total_tokens ?? (body.usage?.input_tokens ?? 0) + (body.usage?.output_tokens ?? 0),
    },
  };
}

/**
 * 429 means two things at OpenAI: a rate limit (wait and retry) or an exhausted quota
 * (`insufficient_quota`: retrying only burns time; the owner must act).
 */
function errorFromAnswer(response: Response, bodyText: string, apiKey: string): ServiceCallError {
  let error: z.infer<typeof errorBodySchema>['error'] = null;
  try {
    error = errorBodySchema.parse(JSON.parse(bodyText)).error ?? null;
  } catch {
    error = null;
  }
  const message = withoutSecret(error?.message || `HTTP ${response.status}`, apiKey);
  const status = response.status;
  if (error?.code === 'insufficient_quota' || error?.type === 'insufficient_quota') {
    return new ServiceCallError('openai', 'insufficient_quota', message, { retryable: false, status });
  }
  const retryAfterMs = retryAfterFrom(response.headers);
  return new ServiceCallError('openai', codeForStatus(status), message, { retryable: isRetryableStatus(status), status, retryAfterMs });
}

/** OpenAI sends `retry-after-ms` beside the standard `retry-after`; the finer one wins. */
function retryAfterFrom(headers: Headers): number | null {
  const milliseconds = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  return parseRetryAfter(headers.get('retry-after'));
}
