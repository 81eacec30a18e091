import { installedVersion, schemasFromTypes, validatorsFor, type Checked, type JsonSchema } from './type-schemas.ts';

/**
 * OpenAI's definition, as the official `openai` SDK's types carry it (Stainless generates
 * them from OpenAI's OpenAPI document): the request and answer of each endpoint Flowsmith
 * calls. The SDK has no type for the error body, which OpenAI documents as
 * `{"error": {"message", "type", "param", "code"}}`; `openAiErrorSchema` is that.
 */
export const openAiSdkVersion = installedVersion('openai');

export interface OpenAiOperation {
  method: string;
  pattern: RegExp;
  requestType: string | null;
  /** The answer's type in `definitions` below. */
  responseType: string;
}

export const openAiOperations: OpenAiOperation[] = [
  { method: 'POST', pattern: /^\/responses\/?$/, requestType: 'ResponseCreateParamsNonStreaming', responseType: 'Response' },
  { method: 'GET', pattern: /^\/models\/?$/, requestType: null, responseType: 'ModelList' },
  { method: 'GET', pattern: /^\/models\/[^/]+\/?$/, requestType: null, responseType: 'Model' },
  { method: 'POST', pattern: /^\/moderations\/?$/, requestType: 'ModerationCreateParams', responseType: 'ModerationCreateResponse' },
];

export function openAiOperationFor(method: string, path: string): OpenAiOperation | undefined {
  return openAiOperations.find((operation) => operation.method === method && operation.pattern.test(path));
}

const openAiErrorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      additionalProperties: false,
      properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } },
    },
  },
};

let validators: ReturnType<typeof validatorsFor> | undefined;
let definitionsLoaded: Record<string, JsonSchema> | undefined;

function load() {
  if (validators) return validators;
  const definitions = {
    ...schemasFromTypes('openai', 'src/resources/responses/responses.ts', ['ResponseCreateParamsNonStreaming', 'Response']),
    ...schemasFromTypes('openai', 'src/resources/models.ts', ['Model']),
    ...schemasFromTypes('openai', 'src/resources/moderations.ts', ['ModerationCreateParams', 'ModerationCreateResponse']),
  };
  // GET /models answers a page: the SDK's ModelsPage is `{object: "list", data: Model[]}` on the wire.
  definitions.ModelList = {
    type: 'object',
    required: ['object', 'data'],
    additionalProperties: false,
    properties: { object: { const: 'list' }, data: { type: 'array', items: { $ref: '#/definitions/Model' } } },
  };
  definitions.ErrorBody = openAiErrorSchema;
  // `output_text` is the SDK's own convenience (lib/ResponsesParser.ts joins the message
  // texts into it after the answer arrives); OpenAI's answer does not carry it.
  const response = definitions.Response!;
  response.required = (response.required as string[]).filter((field) => field !== 'output_text');
  delete (response.properties as Record<string, unknown>).output_text;
  definitionsLoaded = definitions;
  validators = validatorsFor(definitions);
  return validators;
}

/**
 * Loads the definition and compiles the check of every type in it, so that a stand-in's
 * first answer is as quick as the next (fake-openai.ts calls it as it starts). Returns the
 * types compiled.
 */
export function prepareOpenAiChecks(): string[] {
  const loaded = load();
  loaded.prepare(openAiCheckedTypes);
  return loaded.compiledTypes();
}

/** The types whose checks are compiled so far in this process. */
export function compiledOpenAiChecks(): string[] {
  return validators?.compiledTypes() ?? [];
}

const openAiCheckedTypes = ['ResponseCreateParamsNonStreaming', 'Response', 'Model', 'ModelList', 'ModerationCreateParams', 'ModerationCreateResponse', 'ErrorBody'];

/** Checks `value` against one of the types above, or 'ErrorBody'. */
export function checkOpenAiType(type: string, value: unknown): Checked {
  return load().check(type, value);
}

/** The top-level fields a request type defines, for OpenAI's "Unknown parameter" refusal. */
export function requestParameterNames(type: string): Set<string> {
  load();
  return new Set(Object.keys((definitionsLoaded![type]?.properties as Record<string, unknown> | undefined) ?? {}));
}
