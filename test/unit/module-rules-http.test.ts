import { describe, expect, it } from 'vitest';
import { sourcesUnder, type Source } from '../support/source-files.ts';
import { apiErrorStatuses } from '../../src/shared/api/error-codes.ts';

/**
 * The HTTP contract's rules (docs/decisions/0037-http-contract.md), which no import graph
 * shows since they are about text: the browser reaches the API only through the endpoint
 * table (src/shared/api/endpoints.ts), and an error code is written only in the shared
 * table of codes (src/shared/api/error-codes.ts); everywhere else it is
 * `apiErrorCodes.<code>`, so renaming a code is one edit the compiler follows.
 */

/** An address of the API written as a string or template: a quote right before `/api/`. */
const apiAddress = /['"`]\/api\//;

function apiAddressesOutsideTheTable(sources: Source[]): string[] {
  return sources.filter(({ text }) => apiAddress.test(text)).map(({ file }) => file);
}

const codes = new Set(Object.keys(apiErrorStatuses));
const errorCodeTable = 'src/shared/api/error-codes.ts';

/**
 * Where a literal is an error code of an answer: the code of an HttpError or a refusal,
 * the `error` or `code` of a body, or a comparison with an answer's `error`.
 */
const answeringPlaces = [
  /new HttpError\(\s*'([a-z_]+)'/g,
  /\brefused\(\s*'([a-z_]+)'/g,
  /\b(?:error|code):\s*'([a-z_]+)'/g,
  /\.error\s*[!=]==?\s*'([a-z_]+)'/g,
  /'([a-z_]+)'\s*[!=]==?\s*[\w.?]*\.error\b/g,
];
/** Any string literal: in the browser a word of the table means the code, whatever its place. */
const anyLiteral = /'([a-z_]+)'/g;

function errorCodeLiterals(sources: Source[], places: RegExp[]): string[] {
  const found: string[] = [];
  for (const { file, text } of sources) {
    if (file === errorCodeTable) continue;
    for (const place of places) {
      for (const match of text.matchAll(place)) {
        if (codes.has(match[1]!)) found.push(`${file}: '${match[1]}'`);
      }
    }
  }
  return [...new Set(found)].sort();
}

/**
 * Domain and query code returns a `Refused` result; only routes, the platform and the
 * hooks that are HTTP plumbing by nature make HTTP errors: the signed-in context's 401,
 * the overload guard's 503 and the rate-limit plugin's 429 set up in app.ts.
 */
const httpPlumbing = [/-routes\.ts$/, /^src\/server\/platform\//, /^src\/server\/auth\/signed-in\.ts$/, /^src\/server\/observability\/overload\.ts$/, /^src\/server\/app\.ts$/];

function httpErrorsOutsideRoutes(sources: Source[]): string[] {
  return sources.filter(({ file, text }) => !httpPlumbing.some((pattern) => pattern.test(file)) && /new HttpError\(/.test(text)).map(({ file }) => file);
}

/**
 * Routes are registered from the endpoint table (registerEndpoint) except the ones the
 * table does not hold: the public intake addresses, whose raw bodies and answers are the
 * senders' contract, the operators' health and metrics, the web pages, and the addresses
 * Shopify and Klaviyo call or send the owner's browser to (OAuth callbacks, the install
 * link, the Shopify app's webhooks), whose form the vendors decide.
 */
const ownRegistration = [
  /^src\/server\/webhooks\/webhook-routes\.ts$/,
  /^src\/server\/privacy\/privacy-webhook-routes\.ts$/,
  /^src\/server\/connections\/shopify-app-webhook-routes\.ts$/,
  /^src\/server\/connections\/connection-routes\.ts$/,
  /^src\/server\/observability\/observability-routes\.ts$/,
  /^src\/server\/web-pages\/web-page-routes\.ts$/,
];
const routeRegistration = /\b(?:app|scope)\.(?:get|post|put|patch|delete|route)\(/;

function routesRegisteredByHand(sources: Source[]): string[] {
  return sources
    .filter(({ file, text }) => file.endsWith('-routes.ts') && !ownRegistration.some((pattern) => pattern.test(file)) && routeRegistration.test(text))
    .map(({ file }) => file);
}

const serverCodeLiterals = (sources: Source[]) => errorCodeLiterals(sources, answeringPlaces);
const webCodeLiterals = (sources: Source[]) => errorCodeLiterals(sources, [anyLiteral]);

describe('the HTTP contract scans', () => {
  it('find an API address written in the browser, as a string or a template', () => {
    const violating = [
      { file: 'src/web/a.ts', text: "const answer = await fetch('/api/flows');" },
      { file: 'src/web/b.tsx', text: 'const stream = new EventSource(`/api/stream/${flowType}`);' },
      { file: 'src/web/c.ts', text: '// the stream at /api/stream is read through use-event-stream.ts\nconst path = endpoints.stream.all;' },
    ];
    expect(apiAddressesOutsideTheTable(violating)).toEqual(['src/web/a.ts', 'src/web/b.tsx']);
  });

  it('find error codes written as literals where answers are made or read', () => {
    const violating = [
      { file: 'src/server/a-routes.ts', text: "throw new HttpError('flow_not_found', message);" },
      { file: 'src/server/b-queries.ts', text: "if (!row) return refused('signature_not_required', message);" },
      { file: 'src/server/c.ts', text: "reply.status(400).send({ error: 'validation', message });" },
      { file: 'src/server/d.ts', text: "const refusal = { code: 'bad_signature', message };" },
      { file: 'src/server/e.ts', text: "if (body.error === 'locked_out') wait();" },
      // A service's own classification that happens to share a word is not an answer.
      { file: 'src/server/integrations/f.ts', text: "throw new ServiceError('openai', 'bad_request', message);" },
      { file: 'src/server/g.ts', text: "throw new HttpError(apiErrorCodes.not_found, message);" },
      { file: errorCodeTable, text: "not_found: 404, 'not_found'" },
    ];
    expect(serverCodeLiterals(violating)).toEqual([
      "src/server/a-routes.ts: 'flow_not_found'",
      "src/server/b-queries.ts: 'signature_not_required'",
      "src/server/c.ts: 'validation'",
      "src/server/d.ts: 'bad_signature'",
      "src/server/e.ts: 'locked_out'",
    ]);
    expect(webCodeLiterals([{ file: 'src/web/a.ts', text: "const unexplained = new Set(['network', 'internal']);" }])).toEqual([
      "src/web/a.ts: 'internal'",
      "src/web/a.ts: 'network'",
    ]);
  });

  it('find an HTTP error made outside routes and the platform', () => {
    const sources = [
      { file: 'src/server/flows/flow-queries.ts', text: "if (!flow) throw new HttpError(apiErrorCodes.flow_not_found, message);" },
      { file: 'src/server/flows/flow-routes.ts', text: "throw new HttpError(apiErrorCodes.validation, message);" },
      { file: 'src/server/platform/input-guards.ts', text: "return new HttpError(apiErrorCodes.malformed_json, message);" },
      { file: 'src/server/intake/intake.ts', text: "return refused(apiErrorCodes.not_found, message);" },
    ];
    expect(httpErrorsOutsideRoutes(sources)).toEqual(['src/server/flows/flow-queries.ts']);
  });

  it('find a route registered by hand outside the table', () => {
    const sources = [
      { file: 'src/server/flows/flow-routes.ts', text: "app.get('/', { schema: { response: { 200: flowListResponseSchema } } }, list);" },
      { file: 'src/server/events/event-routes.ts', text: "await registerEndpoint(app, endpoints.events.list, {}, list);" },
      { file: 'src/server/webhooks/webhook-routes.ts', text: "app.post('/api/webhooks/:flowType/:flowId', options, receive);" },
    ];
    expect(routesRegisteredByHand(sources)).toEqual(['src/server/flows/flow-routes.ts']);
  });
});

describe("the app's HTTP contract", () => {
  it('registers every other route from the endpoint table', async () => {
    expect(routesRegisteredByHand(await sourcesUnder('src/server'))).toEqual([]);
  });

  it('makes HTTP errors only in routes, the platform and the HTTP hooks', async () => {
    expect(httpErrorsOutsideRoutes(await sourcesUnder('src/server'))).toEqual([]);
  });

  it('has no API address in the browser outside the endpoint table', async () => {
    expect(apiAddressesOutsideTheTable(await sourcesUnder('src/web'))).toEqual([]);
  });

  it('writes no error code as a literal outside the table of codes', async () => {
    expect(serverCodeLiterals([...(await sourcesUnder('src/server')), ...(await sourcesUnder('src/shared'))])).toEqual([]);
    expect(webCodeLiterals(await sourcesUnder('src/web'))).toEqual([]);
  });
});
