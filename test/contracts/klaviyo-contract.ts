import { randomUUID } from 'node:crypto';
import type { Contract, FakeReply, RecordedRequest } from '../fakes/fake-server.ts';
import { checkKlaviyoType, klaviyoDocumentedLimits, klaviyoErrorType, klaviyoOperationFor, klaviyoOperationsUsed, klaviyoSdkRevision, type KlaviyoOperation } from './klaviyo-definition.ts';

/**
 * Klaviyo's definition held against a stand-in's traffic (fake-server's `Contract`):
 * what any Klaviyo account would refuse, whatever its key may do. A request for a route
 * the definition lacks, without the revision, accept or content-type Klaviyo requires,
 * with a query parameter the operation does not take, a page size over its maximum, a
 * body that is not the operation's request type, or an event over a limit the definition
 * states in words (a metric name of 128 characters or more), gets Klaviyo's refusal (JSON:API
 * `errors` naming the field) and is a violation. A key's missing scopes are not: an
 * owner's key decides those, so the stand-in answers them (403) as an outcome.
 */

/** The JSON:API media type Klaviyo speaks; plain JSON is accepted as well. */
const jsonApi = 'application/vnd.api+json';

export function klaviyoError(status: number, code: string, title: string, detail: string, source?: { pointer?: string; parameter?: string }, headers?: Record<string, string>): FakeReply {
  return {
    status,
    headers,
    contentType: jsonApi,
    body: { errors: [{ id: randomUUID(), code, title, detail, ...(source ? { source } : {}) }] },
  };
}

const invalid = (detail: string, source: { pointer?: string; parameter?: string }) => klaviyoError(400, 'invalid', 'Invalid input.', detail, source);

/** Turns a validator problem ("/data/attributes/email: must be string") into Klaviyo's pointer and detail. */
function bodyRefusal(problems: string[]): FakeReply {
  const first = problems[0] ?? '/: invalid';
  const split = first.indexOf(': ');
  const pointer = split === -1 ? '/data' : first.slice(0, split) || '/';
  return invalid(split === -1 ? first : first.slice(split + 2), { pointer });
}

function checkQuery(operation: KlaviyoOperation, query: URLSearchParams): { reply: FakeReply; problem: string } | undefined {
  for (const name of new Set(query.keys())) {
    if (!operation.query.includes(name)) {
      return { reply: invalid(`'${name}' is not a valid query parameter for ${operation.path}.`, { parameter: name }), problem: `query parameter '${name}' is not one ${operation.name} takes (${operation.query.join(', ') || 'none'})` };
    }
  }
  const size = query.get('page[size]');
  if (size !== null) {
    const value = Number(size);
    const max = operation.pageSizeMax ?? 100;
    if (!Number.isInteger(value) || value < 1 || value > max) {
      return { reply: invalid(`Page size must be an integer between 1 and ${max}.`, { parameter: 'page[size]' }), problem: `page[size]=${size} is outside 1..${max} for ${operation.name}` };
    }
  }
  return undefined;
}

const limits = klaviyoDocumentedLimits();

/** The events a createEvent or bulkCreateEvents body carries, each with the pointer to its attributes. */
function eventsIn(operation: string, body: any): Array<{ attributes: any; pointer: string }> {
  if (operation === 'createEvent') return [{ attributes: body?.data?.attributes, pointer: '/data/attributes' }];
  if (operation !== 'bulkCreateEvents') return [];
  const entries: any[] = body?.data?.attributes?.['events-bulk-create']?.data ?? [];
  return entries.flatMap((entry, index) =>
    ((entry?.attributes?.events?.data ?? []) as any[]).map((event, at) => ({ attributes: event?.attributes, pointer: `/data/attributes/events-bulk-create/data/${index}/attributes/events/data/${at}/attributes` })),
  );
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * What Klaviyo's definition states in words (klaviyoDocumentedLimits) about an event: a
 * metric name of fewer than 128 characters (counted as Klaviyo counts them, by code
 * point), at most 400 properties, no string over 100 KB.
 */
function checkDocumentedLimits(operation: KlaviyoOperation, body: unknown): { reply: FakeReply; problems: string[] } | undefined {
  for (const { attributes, pointer } of eventsIn(operation.name, body)) {
    const name: unknown = attributes?.metric?.data?.attributes?.name;
    if (typeof name === 'string' && [...name].length >= limits.metricNameShorterThan) {
      return {
        reply: invalid(`Metric name must be less than ${limits.metricNameShorterThan} characters.`, { pointer: `${pointer}/metric/data/attributes/name` }),
        problems: [`${operation.name}: the metric name has ${[...name].length} characters; the definition (MetricCreateQueryResourceObject.attributes.name) takes fewer than ${limits.metricNameShorterThan}`],
      };
    }
    const properties = attributes?.properties;
    const count = properties && typeof properties === 'object' ? Object.keys(properties).length : 0;
    if (count > limits.eventMaxProperties) {
      return {
        reply: invalid(`An event may have at most ${limits.eventMaxProperties} properties.`, { pointer: `${pointer}/properties` }),
        problems: [`${operation.name}: the event has ${count} properties; the definition takes at most ${limits.eventMaxProperties}`],
      };
    }
    const largest = Math.max(0, ...stringsIn(properties).map((text) => Buffer.byteLength(text)));
    if (largest > limits.eventMaxStringBytes) {
      return {
        reply: invalid(`A property string may be at most ${limits.eventMaxStringBytes / 1024} KB.`, { pointer: `${pointer}/properties` }),
        problems: [`${operation.name}: a property string of ${largest} bytes; the definition takes at most ${limits.eventMaxStringBytes}`],
      };
    }
  }
  return undefined;
}

export const klaviyoContract: Contract = {
  checkRequest(request: RecordedRequest) {
    const operation = klaviyoOperationFor(request.method, request.path);
    if (!operation) {
      return {
        reply: klaviyoError(404, 'not_found', 'Not found.', `No route matches ${request.method} ${request.path}.`),
        problems: [`Klaviyo has no operation ${request.method} ${request.path}`],
      };
    }
    if (!(klaviyoOperationsUsed as readonly string[]).includes(operation.name)) {
      // The key's instructions are tested against the scopes of the listed operations only.
      return {
        reply: klaviyoError(404, 'not_found', 'Not found.', `The stand-in does not serve ${operation.name}.`),
        problems: [`${operation.name} is not in klaviyoOperationsUsed: list it there, so that the key's instructions ask for its scopes (${operation.scopes.join(', ')})`],
      };
    }
    const headers = request.headers;
    if (!/^Klaviyo-API-Key \S+$/.test(headers.authorization ?? '')) {
      return {
        reply: klaviyoError(401, 'not_authenticated', 'Authentication credentials were not provided.', 'Missing or invalid authorization scheme. Please use Klaviyo-API-Key.'),
        problems: [`${operation.name}: the authorization header is not "Klaviyo-API-Key <key>"`],
      };
    }
    if (headers.revision !== klaviyoSdkRevision) {
      return {
        reply: invalid(headers.revision ? `Invalid revision: ${String(headers.revision)}.` : 'Missing required revision header.', { parameter: 'revision' }),
        problems: [`${operation.name}: revision header ${JSON.stringify(headers.revision ?? null)}, the definition is revision ${klaviyoSdkRevision}`],
      };
    }
    const accept = headers.accept ?? '';
    if (!accept.includes(jsonApi) && !accept.includes('application/json')) {
      return { reply: klaviyoError(406, 'not_acceptable', 'Not acceptable.', `Could not satisfy the request Accept header: ${accept}.`), problems: [`${operation.name}: accept is ${JSON.stringify(accept)}, not ${jsonApi}`] };
    }
    const queryRefusal = checkQuery(operation, request.query);
    if (queryRefusal) return { reply: queryRefusal.reply, problems: [queryRefusal.problem] };
    if (!operation.requestType) {
      if (request.rawBody !== '') return { reply: invalid('This operation takes no body.', { pointer: '/' }), problems: [`${operation.name} takes no body, but one was sent`] };
      return undefined;
    }
    const contentType = headers['content-type'] ?? '';
    if (!contentType.includes(jsonApi) && !contentType.includes('application/json')) {
      return {
        reply: klaviyoError(415, 'unsupported_media_type', 'Unsupported media type.', `Unsupported media type "${contentType}" in request.`),
        problems: [`${operation.name}: content-type is ${JSON.stringify(contentType)}, not ${jsonApi}`],
      };
    }
    if (typeof request.body !== 'object' || request.body === null) {
      return { reply: invalid('JSON parse error.', { pointer: '/' }), problems: [`${operation.name}: the body is not a JSON object`] };
    }
    const checked = checkKlaviyoType(operation.requestType, request.body);
    if (!checked.ok) return { reply: bodyRefusal(checked.problems), problems: checked.problems.map((problem) => `${operation.requestType}${problem}`) };
    return checkDocumentedLimits(operation, request.body);
  },

  checkReply(request: RecordedRequest, reply: FakeReply) {
    const operation = klaviyoOperationFor(request.method, request.path);
    const where = operation?.name ?? `${request.method} ${request.path}`;
    if (reply.status >= 400) {
      const checked = checkKlaviyoType(klaviyoErrorType, reply.body);
      return checked.ok ? [] : checked.problems.map((problem) => `${where} ${reply.status}: ${klaviyoErrorType}${problem}`);
    }
    if (!operation) return [`${where}: answered ${reply.status} for a route Klaviyo does not have`];
    if (!operation.responseType) return reply.body === undefined ? [] : [`${where}: Klaviyo answers this operation with no body`];
    const checked = checkKlaviyoType(operation.responseType, reply.body);
    return checked.ok ? [] : checked.problems.map((problem) => `${where}: ${operation.responseType}${problem}`);
  },
};
