import { createHash, randomUUID } from 'node:crypto';
import { delay, hang, startFakeServer, type FakeReply, type RecordedRequest } from './fake-server.ts';
import { openAiContract, openAiErrorReply } from '../contracts/openai-contract.ts';
import { prepareOpenAiChecks } from '../contracts/openai-definition.ts';

/** Which endpoints a forced failure applies to. */
export type OpenAIEndpoint = 'responses' | 'models' | 'moderations' | 'any';

/**
 * A forced failure, used once from the queue (`failNext`) or every time a `failWhen`
 * rule returns it.
 * - `status`: an error answer with that status (500, 503, 429 rate limit, 400 …).
 * - `insufficient_quota`: 429 with code insufficient_quota (do not retry).
 * - `no-text`: 200 incomplete (max_output_tokens) with only a reasoning item: no message text.
 * - `incomplete`: 200 incomplete with the start of the text, as OpenAI answers when the
 *   output budget or the content filter cut the message off.
 * - `failed`: 200 with status failed and an `error` (OpenAI's ResponseError codes).
 * - `refusal`: 200 completed, the message holding a refusal instead of text.
 * - `response-status`: 200 with the text, but a status a synchronous call should never
 *   carry (queued, in_progress, cancelled): a real shape the app must not take as done.
 * - `hang`: no answer at all, until the fake is closed.
 */
export type OpenAIFailure = { on?: OpenAIEndpoint } & (
  | {
      kind: 'status';
      status: number;
      message?: string;
      type?: string;
      code?: string | null;
      param?: string | null;
      retryAfterSeconds?: number;
      retryAfterMs?: number;
    }
  | { kind: 'insufficient_quota' }
  | { kind: 'no-text' }
  | { kind: 'incomplete'; reason?: 'max_output_tokens' | 'content_filter'; partialText?: string }
  | { kind: 'failed'; code?: string; message?: string }
  | { kind: 'refusal'; refusal?: string }
  | { kind: 'response-status'; status: 'queued' | 'in_progress' | 'cancelled' }
  | { kind: 'hang' }
);

/** A forced answer that is still a 200 Response, shaped from the request. */
type ShapedFailure = Extract<OpenAIFailure, { kind: 'no-text' | 'incomplete' | 'failed' | 'refusal' | 'response-status' }>;

export interface ResponsesRequestBody {
  model: string;
  instructions?: string;
  input: unknown;
  max_output_tokens?: number;
  store?: boolean;
  prompt_cache_key?: string;
  service_tier?: string;
  text?: { format?: { type?: string; name?: string; schema?: { properties?: Record<string, unknown> } } };
}

/** Returns the text the model "writes" for a request. */
export type OpenAIResponder = (body: ResponsesRequestBody, request: RecordedRequest) => string;

export interface FakeOpenAIOptions {
  /** API keys the fake accepts (default: ['sk-test-valid']). */
  validKeys?: string[];
  /** Models every valid key can use (default: gpt-5-mini, gpt-5, gpt-4.1-mini). */
  models?: string[];
  /** Models per key, overriding `models` for that key. */
  modelsForKey?: Record<string, string[]>;
  /** Delay before every answer. */
  latencyMs?: number;
  /** Delay before a moderation answer, when it differs from `latencyMs` (moderation answers far sooner than a model writes). */
  moderationLatencyMs?: number;
  responder?: OpenAIResponder;
  /** Answer flex-tier requests with 429 resource_unavailable, as OpenAI does when flex capacity is short. */
  refuseFlex?: boolean;
  /** `shutdown_date` per model in the model list (OpenAI's Model object). */
  shutdownDates?: Record<string, string>;
  /** Models that cannot serve Structured Outputs: a json_schema format gets OpenAI's 400. */
  modelsWithoutStructuredOutputs?: string[];
}

const defaultModels = ['gpt-5-mini', 'gpt-5', 'gpt-4.1-mini'];

/** The categories of OpenAI's Moderation object (the SDK's type); for a text input each applies to 'text'. */
const moderationCategories = [
  'harassment', 'harassment/threatening', 'hate', 'hate/threatening', 'illicit', 'illicit/violent', 'self-harm',
  'self-harm/instructions', 'self-harm/intent', 'sexual', 'sexual/minors', 'violence', 'violence/graphic',
];

/** The text of the `input` field, whether a string or a list of messages. */
export function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return JSON.stringify(input ?? '');
  return input
    .map((item: any) => {
      if (typeof item?.content === 'string') return item.content;
      if (Array.isArray(item?.content)) return item.content.map((part: any) => part?.text ?? '').join('');
      return '';
    })
    .join('\n');
}

/** The default text: deterministic, so tests can assert it. */
export function defaultOpenAIText(body: ResponsesRequestBody): string {
  const text = `AI(${body.model}): ${inputText(body.input)}`.slice(0, 300);
  const format = body.text?.format;
  if (format?.type === 'json_schema') {
    // Like a model doing as asked: each field answers the task the input gives for it
    // ('Task for field "text_1":' …), echoed as a single call's text would be.
    const keys = Object.keys(format.schema?.properties ?? {});
    const tasks = new Map<string, string>();
    const parts = inputText(body.input).split(/^Task for field "([^"]+)":\n/m);
    for (let index = 1; index + 1 < parts.length; index += 2) tasks.set(parts[index]!, parts[index + 1]!.trim());
    return JSON.stringify(Object.fromEntries(keys.map((key) => [key, tasks.has(key) ? `AI(${body.model}): ${tasks.get(key)}`.slice(0, 300) : `${text} [${key}]`])));
  }
  return text;
}

function errorReply(status: number, error: { message: string; type: string; param?: string | null; code?: string | null }, headers?: Record<string, string>): FakeReply {
  return { ...openAiErrorReply(status, error), headers };
}

const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/** An output message as OpenAI sends it: id, role, status and, per text part, its annotations. */
function messageItem(content: unknown[], status: 'completed' | 'incomplete' = 'completed') {
  return { id: newId('msg'), type: 'message', status, role: 'assistant', content };
}

/**
 * A Response with every field the definition requires, echoing what the request set as
 * OpenAI does (instructions, max_output_tokens, text format, prompt_cache_key).
 */
function responseBody(
  request: ResponsesRequestBody,
  answer: {
    status: 'completed' | 'incomplete' | 'failed' | 'queued' | 'in_progress' | 'cancelled';
    output: unknown[];
    usage: { input: number; cached: number; output: number };
    incompleteReason?: string;
    error?: { code: string; message: string };
    serviceTier?: string;
  },
) {
  return {
    id: newId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: answer.status,
    background: false,
    error: answer.error ?? null,
    incomplete_details: answer.incompleteReason ? { reason: answer.incompleteReason } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: {},
    model: request.model,
    output: answer.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    service_tier: answer.serviceTier ?? 'default',
    temperature: 1,
    text: { format: request.text?.format ?? { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    access_programs: null,
    usage: {
      input_tokens: answer.usage.input,
      input_tokens_details: { cached_tokens: answer.usage.cached, cache_write_tokens: 0 },
      output_tokens: answer.usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: answer.usage.input + answer.usage.output,
    },
  };
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/**
 * OpenAI caches prompt prefixes of 1,024 tokens or more, in steps of 128
 * (docs/product/service-contracts.md §2); here a token is 4 characters.
 */
const CACHE_MIN_TOKENS = 1_024;
const CACHE_STEP_TOKENS = 128;

/** The prefix lengths (in characters) a prompt could be cached at, longest first. */
function cacheBoundaries(prompt: string): number[] {
  const boundaries: number[] = [];
  for (let tokenCount = CACHE_MIN_TOKENS; tokenCount * 4 <= prompt.length; tokenCount += CACHE_STEP_TOKENS) boundaries.push(tokenCount * 4);
  return boundaries.reverse();
}

/**
 * A local OpenAI: `/v1/models`, `/v1/models/{id}` and `/v1/responses` per
 * docs/product/service-contracts.md §2, held to OpenAI's definition
 * (test/contracts/openai-contract.ts): what OpenAI would refuse for any key is refused as
 * OpenAI refuses it and fails the test on close; a key's validity and its models are this
 * stand-in's state.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}) {
  // The checks are compiled now, not on the first request: compiling OpenAI's Response took
  // 0.6 s here, and on a busy run a first credential check waited past its 8 s limit behind it.
  prepareOpenAiChecks();
  const validKeys = new Set(options.validKeys ?? ['sk-test-valid']);
  const models = new Set(options.models ?? defaultModels);
  const modelsForKey = new Map(Object.entries(options.modelsForKey ?? {}));
  const shutdownDates = new Map(Object.entries(options.shutdownDates ?? {}));
  const withoutStructuredOutputs = new Set(options.modelsWithoutStructuredOutputs ?? []);
  const queue: OpenAIFailure[] = [];
  const rules: Array<(request: RecordedRequest) => OpenAIFailure | undefined> = [];
  const state = {
    latencyMs: options.latencyMs ?? 0,
    responder: options.responder ?? ((body: ResponsesRequestBody) => defaultOpenAIText(body)),
    inFlight: 0,
    peakInFlight: 0,
    responsesServed: 0,
    refuseFlex: options.refuseFlex ?? false,
    cachedTokensServed: 0,
    inputTokensServed: 0,
    /** Moderation flags every input containing one of these (any case). */
    flaggedPhrases: [] as string[],
  };
  /** Per API key, the hashes of every cacheable prefix seen so far. */
  const cachedPrefixes = new Map<string, Set<string>>();

  /** Tokens of `prompt` a cache would serve: its longest prefix (on a boundary) sent before with this key; then remembers its own. */
  function cachedTokensFor(key: string, prompt: string): number {
    const seen = cachedPrefixes.get(key) ?? new Set<string>();
    cachedPrefixes.set(key, seen);
    const boundaries = cacheBoundaries(prompt);
    const hashes = boundaries.map((length) => createHash('sha1').update(prompt.slice(0, length)).digest('hex'));
    const hit = boundaries.find((_, index) => seen.has(hashes[index]!));
    for (const hash of hashes) seen.add(hash);
    return hit === undefined ? 0 : hit / 4;
  }

  const keyModels = (key: string) => modelsForKey.get(key) ?? [...models];

  const appliesTo = (failure: OpenAIFailure, endpoint: OpenAIEndpoint) => {
    const on = failure.on ?? 'responses';
    return on === 'any' || on === endpoint;
  };

  function failureFor(request: RecordedRequest, endpoint: OpenAIEndpoint): OpenAIFailure | undefined {
    for (const rule of rules) {
      const failure = rule(request);
      if (failure && appliesTo(failure, endpoint)) return failure;
    }
    const index = queue.findIndex((failure) => appliesTo(failure, endpoint));
    return index === -1 ? undefined : queue.splice(index, 1)[0];
  }

  function failureReply(failure: OpenAIFailure): FakeReply | typeof hang | ShapedFailure {
    switch (failure.kind) {
      case 'hang':
        return hang;
      case 'no-text':
      case 'incomplete':
      case 'failed':
      case 'refusal':
      case 'response-status':
        return failure;
      case 'insufficient_quota':
        return errorReply(429, {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        });
      case 'status': {
        const headers: Record<string, string> = {};
        if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
        if (failure.retryAfterMs !== undefined) headers['retry-after-ms'] = String(failure.retryAfterMs);
        const defaults =
          failure.status === 429
            ? { message: 'Rate limit reached for requests. Please try again later.', type: 'requests', code: 'rate_limit_exceeded' }
            : failure.status >= 500
              ? { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null }
              : { message: 'Invalid request.', type: 'invalid_request_error', code: null };
        return errorReply(
          failure.status,
          {
            message: failure.message ?? defaults.message,
            type: failure.type ?? defaults.type,
            code: failure.code === undefined ? defaults.code : failure.code,
            param: failure.param ?? null,
          },
          headers,
        );
      }
    }
  }

  function authenticate(request: RecordedRequest): { key: string } | FakeReply {
    const header = request.headers.authorization;
    if (!header) {
      return errorReply(401, {
        message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.",
        type: 'invalid_request_error',
      });
    }
    const key = header.replace(/^Bearer\s+/i, '');
    if (!validKeys.has(key)) {
      const shown = key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : '*****';
      return errorReply(401, {
        message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
    }
    return { key };
  }

  const modelObject = (id: string) => ({ id, object: 'model', created: 1_750_000_000, owned_by: 'openai', ...(shutdownDates.has(id) ? { shutdown_date: shutdownDates.get(id) } : {}) });
  const modelNotFound = (id: string) =>
    errorReply(404, {
      message: `The model '${id}' does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      code: 'model_not_found',
    });

  function handleResponses(request: RecordedRequest, key: string, shaped: ShapedFailure | undefined): FakeReply {
    // The contract (openai-contract.ts) has already refused what OpenAI refuses for any key.
    const body = request.body as ResponsesRequestBody;
    if (body.input === undefined) {
      return errorReply(400, { message: "Missing required parameter: 'input'.", type: 'invalid_request_error', param: 'input', code: 'missing_required_parameter' });
    }
    if (!keyModels(key).includes(body.model)) return modelNotFound(body.model);
    if (body.text?.format?.type === 'json_schema' && withoutStructuredOutputs.has(body.model)) {
      return errorReply(400, {
        message: `Invalid parameter: 'text.format' of type 'json_schema' is not supported with this model.`,
        type: 'invalid_request_error',
        param: 'text.format',
        code: null,
      });
    }
    const reasoning = { id: newId('rs'), type: 'reasoning', summary: [] };
    const promptText = `${body.instructions ?? ''}${inputText(body.input)}`;
    const inputTokens = tokens(promptText);
    if (shaped?.kind === 'no-text' || shaped?.kind === 'incomplete') {
      const budget = body.max_output_tokens ?? 16;
      const partial = shaped.kind === 'incomplete' ? (shaped.partialText ?? state.responder(body, request).slice(0, 20)) : null;
      const output = partial === null ? [reasoning] : [reasoning, messageItem([{ type: 'output_text', text: partial, annotations: [] }], 'incomplete')];
      const reason = shaped.kind === 'incomplete' ? (shaped.reason ?? 'max_output_tokens') : 'max_output_tokens';
      return { status: 200, body: responseBody(body, { status: 'incomplete', incompleteReason: reason, output, usage: { input: inputTokens, cached: 0, output: budget } }) };
    }
    if (shaped?.kind === 'failed') {
      const error = { code: shaped.code ?? 'server_error', message: shaped.message ?? 'The model failed to generate a response.' };
      return { status: 200, body: responseBody(body, { status: 'failed', error, output: [], usage: { input: inputTokens, cached: 0, output: 0 } }) };
    }
    if (shaped?.kind === 'refusal') {
      const refusal = shaped.refusal ?? "I'm sorry, I can't help with that.";
      const output = [messageItem([{ type: 'refusal', refusal }])];
      return { status: 200, body: responseBody(body, { status: 'completed', output, usage: { input: inputTokens, cached: 0, output: tokens(refusal) } }) };
    }
    if (body.service_tier === 'flex' && state.refuseFlex) {
      return errorReply(429, { message: 'Flex processing is temporarily unavailable. Please retry later or use the default tier.', type: 'invalid_request_error', code: 'resource_unavailable' });
    }
    const text = state.responder(body, request);
    const cachedTokens = Math.min(inputTokens, cachedTokensFor(key, promptText));
    state.inputTokensServed += inputTokens;
    state.cachedTokensServed += cachedTokens;
    return {
      status: 200,
      body: responseBody(body, {
        status: shaped?.kind === 'response-status' ? shaped.status : 'completed',
        output: [reasoning, messageItem([{ type: 'output_text', text, annotations: [] }])],
        serviceTier: body.service_tier === 'flex' ? 'flex' : 'default',
        usage: { input: inputTokens, cached: cachedTokens, output: tokens(text) },
      }),
    };
  }

  /** POST /v1/moderations: one result per text input, in order, as ModerationCreateResponse has it. */
  function handleModerations(request: RecordedRequest): FakeReply {
    const body = request.body as { input: string | string[] | Array<{ type: string; text?: string }>; model?: string };
    const inputs = typeof body.input === 'string' ? [body.input] : body.input.map((item) => (typeof item === 'string' ? item : (item.text ?? '')));
    const results = inputs.map((text) => {
      const flagged = state.flaggedPhrases.some((phrase) => text.toLowerCase().includes(phrase.toLowerCase()));
      const categories = Object.fromEntries(moderationCategories.map((name) => [name, flagged && name === 'harassment']));
      const scores = Object.fromEntries(moderationCategories.map((name) => [name, flagged && name === 'harassment' ? 0.93 : 0.0002]));
      const applied = Object.fromEntries(moderationCategories.map((name) => [name, ['text']]));
      return { flagged, categories, category_scores: scores, category_applied_input_types: applied };
    });
    return { status: 200, body: { id: `modr-${randomUUID()}`, model: body.model ?? 'omni-moderation-latest', results } };
  }

  const server = await startFakeServer(async (request) => {
    const isResponses = request.method === 'POST' && request.path === '/v1/responses';
    if (isResponses) {
      state.inFlight += 1;
      state.peakInFlight = Math.max(state.peakInFlight, state.inFlight);
    }
    try {
      const isModerations = request.method === 'POST' && request.path === '/v1/moderations';
      const latencyMs = isModerations ? (options.moderationLatencyMs ?? state.latencyMs) : state.latencyMs;
      if (latencyMs > 0) await delay(latencyMs);
      const endpoint = isResponses ? 'responses' : isModerations ? 'moderations' : 'models';
      const failure = failureFor(request, endpoint);
      const forced = failure ? failureReply(failure) : undefined;
      const shaped = forced !== undefined && forced !== hang && 'kind' in forced ? forced : undefined;
      if (forced !== undefined && !shaped) return forced as FakeReply | typeof hang;
      const auth = authenticate(request);
      if (!('key' in auth)) return auth;
      if (isResponses) {
        const reply = handleResponses(request, auth.key, shaped);
        if (reply.status === 200) state.responsesServed += 1;
        return reply;
      }
      if (isModerations) return handleModerations(request);
      if (request.method === 'GET' && request.path === '/v1/models') {
        return { status: 200, body: { object: 'list', data: keyModels(auth.key).map(modelObject) } };
      }
      const modelMatch = /^\/v1\/models\/([^/]+)$/.exec(request.path);
      if (request.method === 'GET' && modelMatch) {
        const id = decodeURIComponent(modelMatch[1]!);
        return keyModels(auth.key).includes(id) ? { status: 200, body: modelObject(id) } : modelNotFound(id);
      }
      return errorReply(404, { message: `Invalid URL (${request.method} ${request.path})`, type: 'invalid_request_error' });
    } finally {
      if (isResponses) state.inFlight -= 1;
    }
  }, openAiContract);

  return {
    /** The server root; the app's OPENAI_BASE_URL is `apiBaseUrl`. */
    baseUrl: server.baseUrl,
    apiBaseUrl: `${server.baseUrl}/v1`,
    requests: server.requests,
    /** The bodies of every POST /v1/responses received. */
    responsesRequests: () => server.requests.filter((r) => r.method === 'POST' && r.path === '/v1/responses'),
    validKeys,
    models,
    modelsForKey,
    setLatency(milliseconds: number) {
      state.latencyMs = milliseconds;
    },
    /** Refuse (or serve again) flex-tier requests. */
    setRefuseFlex(refuse: boolean) {
      state.refuseFlex = refuse;
    },
    /** Input tokens answered so far, and of them those served from the prompt cache. */
    get tokens() {
      return { input: state.inputTokensServed, cached: state.cachedTokensServed };
    },
    /** Moderation flags (as harassment) every text containing `phrase`, from now on. */
    flagTextsContaining(phrase: string) {
      state.flaggedPhrases.push(phrase);
    },
    setResponder(responder: OpenAIResponder) {
      state.responder = responder;
    },
    /** Queues failures, each used once by the next matching request (default: /responses). */
    failNext(...failures: OpenAIFailure[]) {
      queue.push(...failures);
    },
    /** Adds a standing rule: every request for which it returns a failure gets it. */
    failWhen(rule: (request: RecordedRequest) => OpenAIFailure | undefined) {
      rules.push(rule);
    },
    clearFailures() {
      queue.length = 0;
      rules.length = 0;
    },
    get inFlight() {
      return state.inFlight;
    },
    /** The most /responses calls that were open at the same time. */
    get peakInFlight() {
      return state.peakInFlight;
    },
    get responsesServed() {
      return state.responsesServed;
    },
    resetCounters() {
      state.peakInFlight = state.inFlight;
      state.responsesServed = 0;
      server.requests.length = 0;
    },
    /** What the contract refused so far, for tests that sent it on purpose. */
    takeViolations: server.takeViolations,
    close: server.close,
  };
}
export type FakeOpenAI = Awaited<ReturnType<typeof startFakeOpenAI>>;
