import type { Contract, FakeReply, RecordedRequest } from '../fakes/fake-server.ts';
import { checkOpenAiType, openAiOperationFor, requestParameterNames } from './openai-definition.ts';

/**
 * OpenAI's definition held against a stand-in (test/fakes/fake-server.ts): a request the
 * real service would refuse gets OpenAI's own refusal (status, `type`, `code`, `param`),
 * and every answer must be a shape the SDK's types allow. Whether a key is valid or a
 * model exists is the stand-in's state, not the definition's: those refusals stay with
 * the stand-in and are no violation.
 */

export interface OpenAiError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export function openAiErrorReply(status: number, error: Partial<OpenAiError> & { message: string }): FakeReply {
  return { status, body: { error: { type: 'invalid_request_error', param: null, code: null, ...error } } };
}

/** OpenAI refuses `max_output_tokens` below this ("integer below minimum value"). */
export const MIN_MAX_OUTPUT_TOKENS = 16;

function refusal(status: number, error: Partial<OpenAiError> & { message: string }) {
  return { reply: openAiErrorReply(status, error), problems: [`${status} ${error.code ?? error.type ?? ''}: ${error.message}`] };
}

/** "/text/format/schema" → "text.format.schema", as OpenAI names a parameter. */
const paramOf = (pointer: string) => pointer.replace(/^\//, '').replace(/\//g, '.') || null;

/**
 * Structured Outputs' rules for a strict schema (OpenAI's "Supported schemas"): the root
 * is an object; every object lists all its properties in `required` and sets
 * `additionalProperties: false`. Returns OpenAI's complaint, or null.
 */
export function strictSchemaProblem(name: string, schema: unknown): string | null {
  const complaint = (context: string[], text: string) => `Invalid schema for response_format '${name}': In context=(${context.map((part) => `'${part}'`).join(', ')}), ${text}`;
  const root = schema as Record<string, unknown>;
  if (root?.type !== 'object' || 'anyOf' in root) return complaint([], "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"" + String(root?.type) + "\"'.");
  const walk = (node: unknown, context: string[]): string | null => {
    if (!node || typeof node !== 'object') return null;
    const value = node as Record<string, unknown>;
    if (value.type === 'object' || 'properties' in value) {
      if (value.additionalProperties !== false) return complaint(context, "'additionalProperties' is required to be supplied and to be false.");
      const keys = Object.keys((value.properties as Record<string, unknown> | undefined) ?? {});
      const required = Array.isArray(value.required) ? (value.required as unknown[]) : [];
      const missing = keys.find((key) => !required.includes(key));
      if (missing !== undefined) return complaint(context, `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`);
      for (const key of keys) {
        const found = walk((value.properties as Record<string, unknown>)[key], [...context, 'properties', key]);
        if (found) return found;
      }
    }
    if (value.items) return walk(value.items, [...context, 'items']);
    for (const keyword of ['anyOf', '$defs', 'definitions'] as const) {
      const children = value[keyword];
      if (!children || typeof children !== 'object') continue;
      for (const [key, child] of Object.entries(children)) {
        const found = walk(child, [...context, keyword, key]);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(root, []);
}

function checkResponsesBody(body: Record<string, unknown>) {
  const known = requestParameterNames('ResponseCreateParamsNonStreaming');
  const unknown = Object.keys(body).find((name) => !known.has(name));
  if (unknown !== undefined) return refusal(400, { message: `Unknown parameter: '${unknown}'.`, param: unknown, code: 'unknown_parameter' });
  if (typeof body.model !== 'string' || body.model === '') {
    return refusal(400, { message: "Missing required parameter: 'model'.", param: 'model', code: 'missing_required_parameter' });
  }
  const checked = checkOpenAiType('ResponseCreateParamsNonStreaming', body);
  if (!checked.ok) {
    const pointer = checked.problems[0]!.split(':')[0]!;
    return refusal(400, { message: `Invalid request: ${checked.problems.join('; ')}`, param: paramOf(pointer), code: 'invalid_value' });
  }
  if (typeof body.max_output_tokens === 'number' && body.max_output_tokens < MIN_MAX_OUTPUT_TOKENS) {
    return refusal(400, {
      message: `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_MAX_OUTPUT_TOKENS}, but got ${body.max_output_tokens} instead.`,
      param: 'max_output_tokens',
      code: 'integer_below_min_value',
    });
  }
  const format = (body.text as { format?: { type?: string; name?: string; strict?: boolean | null; schema?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(format.name ?? '')) {
      return refusal(400, { message: `Invalid 'text.format.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, param: 'text.format.name', code: 'invalid_value' });
    }
    const problem = format.strict === true ? strictSchemaProblem(format.name!, format.schema) : null;
    if (problem) return refusal(400, { message: problem, param: 'text.format.schema', code: 'invalid_json_schema' });
  }
  return undefined;
}

export const openAiContract: Contract = {
  checkRequest(request: RecordedRequest) {
    const path = request.path.replace(/^\/v1/, '');
    const operation = openAiOperationFor(request.method, path);
    if (!operation) return refusal(404, { message: `Invalid URL (${request.method} ${request.path})` });
    // OpenAI answers a missing or malformed Authorization header before anything else.
    if (!/^Bearer \S+$/.test(request.headers.authorization ?? '')) {
      return refusal(401, {
        message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      });
    }
    if (operation.requestType === null) return undefined;
    if (!String(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return refusal(400, { message: 'Invalid Content-Type header, expected application/json.' });
    }
    if (!request.body || typeof request.body !== 'object' || Array.isArray(request.body)) {
      return refusal(400, { message: 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly.)' });
    }
    if (operation.requestType === 'ResponseCreateParamsNonStreaming') return checkResponsesBody(request.body as Record<string, unknown>);
    const checked = checkOpenAiType(operation.requestType, request.body);
    return checked.ok ? undefined : refusal(400, { message: `Invalid request: ${checked.problems.join('; ')}`, code: 'invalid_value' });
  },

  checkReply(request: RecordedRequest, reply: FakeReply) {
    const operation = openAiOperationFor(request.method, request.path.replace(/^\/v1/, ''));
    const type = reply.status >= 200 && reply.status < 300 && operation ? operation.responseType : 'ErrorBody';
    return checkOpenAiType(type, reply.body).problems.map((problem) => `${type} ${problem}`);
  },
};
