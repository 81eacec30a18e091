import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/shared/api/endpoint.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/**
 * Tests and benchmarks name the app's own endpoints through the endpoint table
 * (src/shared/api/endpoints.ts), as the browser does: `client.call(endpoints.flows.update, …)`,
 * or `endpointAddress(endpoints.events.detail, …)` for a raw request. A path moved in the
 * table then moves every test with it, instead of leaving tests that ask an address the
 * app no longer answers. Addresses the table does not hold stay written out: the public
 * intake (`/api/webhooks/…`, `/api/pixel/…`), the operators' `/healthz` and `/metrics`, and
 * the vendors' own API paths the stand-ins answer.
 */

/** Marks where a template literal has a `${…}` hole, in the text the matchers read. */
const hole = '\u0000';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every endpoint of the table (its groups nest one level). */
function tableEndpoints(): Endpoint[] {
  return Object.values(endpoints).flatMap((group) => Object.values(group) as Endpoint[]);
}

/**
 * One matcher per path of the table: its fixed segments as written, each `:param`
 * segment any text without a slash (a value, or a template's hole); a hole right after
 * the path may hold its query.
 */
const endpointPaths: RegExp[] = [...new Set(tableEndpoints().map((entry) => entry.path))].map(
  (endpointPath) => new RegExp(`^${endpointPath.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment))).join('/')}${hole}?$`),
);

/**
 * The addresses in a literal's text: from `/api/` to where an address ends (a query or
 * fragment, a space, a quote or a bracket). A host or a template's hole before it is not
 * part of the path.
 */
function addressesIn(text: string): string[] {
  return [...text.matchAll(/\/api\/[^\s?#'"`<>()[\]{},;]*/g)].map((match) => match[0]);
}

function namesAnEndpoint(address: string): boolean {
  return endpointPaths.some((pattern) => pattern.test(address));
}

/** The functions whose first argument is a test's or a group's title. */
const titled = new Set(['describe', 'it', 'test', 'suite', 'bench']);

/** Whether the literal is the title of a test or a group (`it('…')`, `it.each([…])('…')`): prose, not an address asked for. */
function isTitle(node: ts.Node): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== node) return false;
  let callee: ts.Expression = call.expression;
  while (ts.isPropertyAccessExpression(callee) || ts.isCallExpression(callee)) callee = callee.expression;
  return ts.isIdentifier(callee) && titled.has(callee.text);
}

/** The text of every string and template literal of a TypeScript source, holes marked; titles left out. */
function literalsOf(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const literals: string[] = [];
  const visit = (node: ts.Node): void => {
    const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
    if (literal && isTitle(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      literals.push(node.text);
    } else if (ts.isTemplateExpression(node)) {
      literals.push(node.head.text + node.templateSpans.map((span) => hole + span.literal.text).join(''));
      // A hole may hold literals of its own.
      for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return literals;
}

/** The literals of a source that name one of the table's endpoints, as written (a hole as `${…}`). */
function endpointLiterals(file: string, source: string): string[] {
  return literalsOf(file, source)
    .filter((literal) => addressesIn(literal).some(namesAnEndpoint))
    .map((literal) => literal.replaceAll(hole, '${…}'));
}

async function typescriptFilesUnder(folder: string): Promise<string[]> {
  const names = await readdir(path.join(projectRoot, folder), { recursive: true });
  return names
    .map((name) => path.posix.join(folder, name.split(path.sep).join('/')))
    .filter((file) => /\.tsx?$/.test(file) && !file.split('/').includes('node_modules'))
    .sort();
}

/** A text with `~/` standing for `/api/`, so that this file's own samples and list name no endpoint. */
function sample(text: string): string {
  return text.replaceAll('~/', '/api/');
}

const klaviyoEvents = 'Klaviyo’s own createEvent path (a request the stand-in received, or a call to it), which is also the path of the app’s event list';

/**
 * Literals that name an endpoint on purpose, each with why: what the test checks is the
 * written-out text itself, or the path is a vendor's that the table happens to share.
 * A new entry needs as good a reason.
 */
const allowed: Array<{ file: string; literals: string[]; reason: string }> = [
  { file: 'test/integration/engine-chaos.test.ts', literals: ['~/events'], reason: klaviyoEvents },
  { file: 'test/integration/engine-crash.test.ts', literals: ['~/events'], reason: klaviyoEvents },
  { file: 'test/integration/fakes.test.ts', literals: ['${…}~/events'], reason: klaviyoEvents },
  {
    file: 'test/unit/api-endpoints.test.ts',
    literals: ['~/events/a%2Fb%20c', '~/events?flowType=abandoned_cart&limit=25', '~/flows/post_purchase/signature'],
    reason: 'the test of endpointAddress and the API client: the expected address is written out, or the builder would be checked against itself',
  },
  {
    file: 'test/unit/input-guards.test.ts',
    literals: ['~/events/abc%00def', '~/events?before=%00', '~/events?before=a%0Ab', '~/events/%ED%A0%80', '~/events?before=%E2%82', '~/events/100%'],
    reason: 'addresses malformed byte by byte on purpose (NUL, broken escapes), which endpointAddress would encode away',
  },
  {
    file: 'test/unit/module-rules-http.test.ts',
    literals: ["const answer = await fetch('~/flows');", 'const stream = new EventSource(`~/stream/${flowType}`);', '// the stream at ~/stream is read through use-event-stream.ts\nconst path = endpoints.stream.all;'],
    reason: 'samples of web code that the HTTP contract rule must find: their text is the address written by hand',
  },
];

describe('literal addresses of the app’s endpoints in tests', () => {
  it('builds one matcher for every path of the table', () => {
    expect(endpointPaths.length).toBeGreaterThan(50);
    expect(namesAnEndpoint(sample('~/flows'))).toBe(true);
    expect(namesAnEndpoint(sample('~/flows/abandoned_cart/preview'))).toBe(true);
    expect(namesAnEndpoint(sample(`~/webhook-status/${hole}/${hole}`))).toBe(true);
  });

  it('finds a string literal naming an endpoint, with its query, and a host before it', () => {
    const source = sample(["await client.get('~/retention');", 'await client.put("~/credentials", body);', "await fetch('http://127.0.0.1:3000~/events?status=failed&limit=5');"].join('\n'));
    expect(endpointLiterals('sample.ts', source)).toEqual(sample('~/retention|~/credentials|http://127.0.0.1:3000~/events?status=failed&limit=5').split('|'));
  });

  it('finds a template literal whose holes stand in for path parameters', () => {
    const source = sample(
      [
        'await owner.client.get(`~/events/${eventId}`);',
        'await fetch(`${testApp.baseUrl}~/flows/${flowType}/preview`, { method: "POST" });',
        'await client.post(`~/reviews/${id}/edit`, { texts });',
        'const status = `~/webhook-status/${flow.flowType}/${flow.id}?since=${since}`;',
        'await client.get(`~/events${query}`);',
      ].join('\n'),
    );
    expect(endpointLiterals('sample.ts', source)).toEqual(
      sample('~/events/${…}|${…}~/flows/${…}/preview|~/reviews/${…}/edit|~/webhook-status/${…}/${…}?since=${…}|~/events${…}').split('|'),
    );
  });

  it('finds a literal inside a template’s hole', () => {
    const source = sample('const line = `GET ${client.baseUrl + "~/dashboard"} answered`;');
    expect(endpointLiterals('sample.ts', source)).toEqual([sample('~/dashboard')]);
  });

  it('reads a test’s title as prose, not as an address, but finds the addresses a table of cases sends', () => {
    const source = sample(
      [
        "describe('GET ~/flows/costs', () => {});",
        "it('checks without saving through POST ~/credentials/check', async () => {});",
        "it.each([['GET', '~/account/session']])('sets the headers on %s %s', async () => {});",
      ].join('\n'),
    );
    expect(endpointLiterals('sample.ts', source)).toEqual([sample('~/account/session')]);
  });

  it('passes what the table does not hold, and addresses named through the table', () => {
    const source = sample(
      [
        // The public intake and the pixel, the operators' addresses.
        'await postEvent(baseUrl, `~/webhooks/${flowType}/${flowId}`, body);',
        "await fetch(`${baseUrl}~/pixel/${pixelKey}`, { method: 'POST' });",
        "await client.post('~/privacy/webhooks/shopify', body);",
        "await fetch(`${baseUrl}/healthz`); await fetch(`${baseUrl}/metrics`);",
        // The vendors' own API paths, as the stand-ins answer them.
        "klaviyo.requests.filter((request) => request.path === '~/profile-import');",
        "const jobs = '~/profile-bulk-import-jobs/01J/import-errors';",
        'await fetch(`${shopify.baseUrl}/admin~/2026-10/graphql.json`);',
        // The OAuth callback the vendors send the browser to is not in the table.
        "const callback = '~/connections/klaviyo/callback?code=x';",
        // Part of an address, not an address.
        "expect(location.startsWith('~/privacy/requests/')).toBe(true);",
        // Through the table.
        'await client.call(endpoints.flows.update, { params: { flowType }, body });',
        'await fetch(`${baseUrl}${endpointAddress(endpoints.events.detail, { params: { eventId } })}`);',
        // Comments are not literals.
        '// GET ~/retention answers the owner’s settings',
      ].join('\n'),
    );
    expect(endpointLiterals('sample.ts', source)).toEqual([]);
  });

  it('has no literal address of an endpoint in test/ or bench/ beyond the allowed ones', async () => {
    const files = [...(await typescriptFilesUnder('test')), ...(await typescriptFilesUnder('bench'))];
    const found: Array<{ file: string; literals: string[] }> = [];
    for (const file of files) {
      const literals = endpointLiterals(file, await readFile(path.join(projectRoot, file), 'utf8'));
      if (literals.length > 0) found.push({ file, literals });
    }
    const expected = allowed.map(({ file, literals }) => ({ file, literals: literals.map(sample) }));
    expect(found, 'name these through the endpoint table: client.call(endpoints.x.y, …) or endpointAddress(endpoints.x.y, …)').toEqual(expected);
  });
});
