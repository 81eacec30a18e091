import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.ts';
import { openAiContract } from '../contracts/openai-contract.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { defaultGrantedScopes, sendShopifyWebhook, signShopifyWebhook, startFakeShopify, type FakeShopify } from '../fakes/fake-shopify.ts';

async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

describe('fake OpenAI', () => {
  let openai: FakeOpenAI;
  beforeAll(async () => {
    openai = await startFakeOpenAI({ validKeys: ['sk-good'], models: ['gpt-5-mini', 'gpt-5'] });
  });
  afterAll(() => openai.close());
  afterEach(() => openai.clearFailures());
  const auth = (key = 'sk-good') => ({ authorization: `Bearer ${key}` });
  const generate = (body: unknown, key = 'sk-good') =>
    call(`${openai.apiBaseUrl}/responses`, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('lists models for a valid key and answers 401 invalid_api_key for an unknown one', async () => {
    const ok = await call(`${openai.apiBaseUrl}/models`, { headers: auth() });
    expect(ok.status).toBe(200);
    expect(ok.json.object).toBe('list');
    expect(ok.json.data.map((m: any) => m.id)).toEqual(['gpt-5-mini', 'gpt-5']);
    const bad = await call(`${openai.apiBaseUrl}/models`, { headers: auth('sk-bad-key-123') });
    expect(bad.status).toBe(401);
    expect(bad.json.error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
    expect(typeof bad.json.error.message).toBe('string');
  });

  it('checks one model: 200 for a known model, 404 model_not_found otherwise', async () => {
    expect((await call(`${openai.apiBaseUrl}/models/gpt-5`, { headers: auth() })).json.id).toBe('gpt-5');
    const missing = await call(`${openai.apiBaseUrl}/models/gpt-0`, { headers: auth() });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('model_not_found');
  });

  it('generates deterministic text in a message item after a reasoning item, and records the request', async () => {
    const response = await generate({ model: 'gpt-5-mini', instructions: 'Be brief', input: 'Write a subject line for socks', max_output_tokens: 200, store: false });
    expect(response.status).toBe(200);
    expect(response.json.status).toBe('completed');
    expect(response.json.output[0].type).toBe('reasoning');
    const message = response.json.output.find((item: any) => item.type === 'message');
    expect(message.content[0]).toMatchObject({ type: 'output_text', text: 'AI(gpt-5-mini): Write a subject line for socks' });
    expect(response.json.usage.total_tokens).toBe(response.json.usage.input_tokens + response.json.usage.output_tokens);
    const recorded = openai.responsesRequests().at(-1)!;
    expect(recorded.headers.authorization).toBe('Bearer sk-good');
    expect(recorded.body).toMatchObject({ model: 'gpt-5-mini', instructions: 'Be brief', store: false });
  });

  it('uses a per-test responder', async () => {
    openai.setResponder((body) => `custom ${body.model}`);
    const response = await generate({ model: 'gpt-5', input: 'x' });
    expect(response.json.output[1].content[0].text).toBe('custom gpt-5');
    openai.setResponder((body) => `AI(${body.model}): ${String(body.input)}`);
  });

  it('forces failures once each: 503 with retry headers, insufficient_quota, 400, no text', async () => {
    openai.failNext(
      { kind: 'status', status: 503, retryAfterMs: 20 },
      { kind: 'status', status: 429, retryAfterSeconds: 2 },
      { kind: 'insufficient_quota' },
      { kind: 'status', status: 400, message: 'Bad input', param: 'input' },
      { kind: 'no-text' },
    );
    const unavailable = await generate({ model: 'gpt-5', input: 'x' });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after-ms')).toBe('20');
    expect(unavailable.json.error.type).toBe('server_error');
    const limited = await generate({ model: 'gpt-5', input: 'x' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json.error.code).toBe('rate_limit_exceeded');
    const quota = await generate({ model: 'gpt-5', input: 'x' });
    expect(quota.status).toBe(429);
    expect(quota.json.error.code).toBe('insufficient_quota');
    const invalid = await generate({ model: 'gpt-5', input: 'x' });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error).toMatchObject({ message: 'Bad input', param: 'input' });
    const empty = await generate({ model: 'gpt-5', input: 'x' });
    expect(empty.status).toBe(200);
    expect(empty.json.output.some((item: any) => item.type === 'message')).toBe(false);
    expect((await generate({ model: 'gpt-5', input: 'x' })).status).toBe(200);
  });

  it('keeps model failures apart from generation failures, and can hang until the client gives up', async () => {
    openai.failNext({ kind: 'hang', on: 'models' });
    expect((await generate({ model: 'gpt-5', input: 'x' })).status).toBe(200);
    await expect(fetch(`${openai.apiBaseUrl}/models`, { headers: auth(), signal: AbortSignal.timeout(200) })).rejects.toThrow();
  });

  it('refuses what OpenAI refuses, names the reason, and records it as a violation', async () => {
    const unknown = await generate({ model: 'gpt-5', input: 'x', max_tokens: 200 });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toEqual({ message: "Unknown parameter: 'max_tokens'.", type: 'invalid_request_error', param: 'max_tokens', code: 'unknown_parameter' });
    const loose = await generate({
      model: 'gpt-5',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'texts', strict: true, schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'], additionalProperties: false } } },
    });
    expect(loose.status).toBe(400);
    expect(loose.json.error).toMatchObject({ param: 'text.format.schema', code: 'invalid_json_schema' });
    expect(loose.json.error.message).toContain("Missing 'b'");
    const open = await generate({
      model: 'gpt-5',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'texts', strict: true, schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } },
    });
    expect(open.json.error.message).toContain("'additionalProperties' is required to be supplied and to be false");
    const tooFew = await generate({ model: 'gpt-5', input: 'x', max_output_tokens: 8 });
    expect(tooFew.json.error).toMatchObject({ param: 'max_output_tokens', code: 'integer_below_min_value' });
    const anonymous = await call(`${openai.apiBaseUrl}/models`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.message).toMatch(/didn't provide an API key/);
    const violations = openai.takeViolations();
    expect(violations.map((violation) => `${violation.side} ${violation.method} ${violation.path}`)).toEqual([
      'request POST /v1/responses',
      'request POST /v1/responses',
      'request POST /v1/responses',
      'request POST /v1/responses',
      'request GET /v1/models',
    ]);
    expect(violations[0]!.problems.join()).toContain('max_tokens');
    // A model the key lacks is the stand-in's state, refused as OpenAI does, and no violation.
    expect((await generate({ model: 'gpt-0', input: 'x' })).json.error.code).toBe('model_not_found');
    expect(openai.takeViolations()).toEqual([]);
  });

  it('holds answers to the definition: a Response missing its required fields is a violation', async () => {
    const request = { method: 'POST', path: '/v1/responses' } as Parameters<typeof openAiContract.checkReply>[0];
    const problems = openAiContract.checkReply(request, { status: 200, body: { id: 'resp_1', object: 'response', status: 'completed', output: [] } });
    expect(problems.join('\n')).toMatch(/'created_at' is required/);
    const answer = (await generate({ model: 'gpt-5', input: 'x' })).json;
    expect(openAiContract.checkReply(request, { status: 200, body: answer })).toEqual([]);
    const message = answer.output.find((item: any) => item.type === 'message');
    const usage = { ...answer.usage };
    delete usage.output_tokens_details;
    expect(openAiContract.checkReply(request, { status: 200, body: { ...answer, usage } }).join('\n')).toMatch(/'output_tokens_details' is required/);
    delete message.status;
    delete message.content[0].annotations;
    const short = openAiContract.checkReply(request, { status: 200, body: answer }).join('\n');
    expect(short).toMatch(/'status' is required/);
    expect(short).toMatch(/'annotations' is required/);
    expect(openAiContract.checkReply(request, { status: 429, body: { error: { message: 'Slow down', type: 'requests' } } }).join()).toMatch(/'code' is required/);
  });

  it('answers the awkward shapes: cut off with partial text, failed with an error, a refusal, and a status a call should not end in', async () => {
    openai.failNext(
      { kind: 'incomplete', partialText: 'Your cart is wai' },
      { kind: 'incomplete', reason: 'content_filter' },
      { kind: 'failed', code: 'server_error', message: 'The model crashed.' },
      { kind: 'refusal', refusal: 'No.' },
      { kind: 'response-status', status: 'in_progress' },
    );
    const cut = (await generate({ model: 'gpt-5', input: 'x', max_output_tokens: 16 })).json;
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16 });
    expect(cut.output.map((item: any) => item.type)).toEqual(['reasoning', 'message']);
    expect(cut.output[1]).toMatchObject({ status: 'incomplete', content: [{ type: 'output_text', text: 'Your cart is wai', annotations: [] }] });
    expect((await generate({ model: 'gpt-5', input: 'x' })).json.incomplete_details).toEqual({ reason: 'content_filter' });
    const failed = (await generate({ model: 'gpt-5', input: 'x' })).json;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'The model crashed.' }, output: [] });
    expect((await generate({ model: 'gpt-5', input: 'x' })).json.output[0].content).toEqual([{ type: 'refusal', refusal: 'No.' }]);
    expect((await generate({ model: 'gpt-5', input: 'x' })).json.status).toBe('in_progress');
    expect(openai.takeViolations()).toEqual([]);
  });

  it('refuses Structured Outputs for a model that cannot serve them, as OpenAI does, and gives shutdown dates', async () => {
    const older = await startFakeOpenAI({ validKeys: ['sk-good'], models: ['gpt-4-turbo', 'gpt-5'], modelsWithoutStructuredOutputs: ['gpt-4-turbo'], shutdownDates: { 'gpt-4-turbo': '2026-10-01' } });
    try {
      const format = { type: 'json_schema', name: 'texts', strict: true, schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } };
      const refused = await call(`${older.apiBaseUrl}/responses`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4-turbo', input: 'x', text: { format } }),
      });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ param: 'text.format', type: 'invalid_request_error' });
      const listed = await call(`${older.apiBaseUrl}/models`, { headers: auth() });
      expect(listed.json.data).toEqual([
        { id: 'gpt-4-turbo', object: 'model', created: 1_750_000_000, owned_by: 'openai', shutdown_date: '2026-10-01' },
        { id: 'gpt-5', object: 'model', created: 1_750_000_000, owned_by: 'openai' },
      ]);
    } finally {
      await older.close();
    }
  });

  it('counts concurrent generation calls', async () => {
    openai.resetCounters();
    openai.setLatency(100);
    await Promise.all([1, 2, 3].map(() => generate({ model: 'gpt-5', input: 'x' })));
    openai.setLatency(0);
    expect(openai.peakInFlight).toBe(3);
    expect(openai.inFlight).toBe(0);
    expect(openai.responsesServed).toBe(3);
  });
});

describe('fake Klaviyo', () => {
  let klaviyo: FakeKlaviyo;
  let now = 1_000_000;
  beforeAll(async () => {
    klaviyo = await startFakeKlaviyo({ validKeys: ['pk_good', 'pk_noscope'], keysWithoutAccountsScope: ['pk_noscope'], now: () => now });
  });
  afterAll(() => klaviyo.close());
  afterEach(() => {
    klaviyo.clearFailures();
    klaviyo.enforceRateLimits = false;
  });
  const headers = (key = 'pk_good') => ({
    authorization: `Klaviyo-API-Key ${key}`,
    revision: '2026-07-15',
    accept: 'application/vnd.api+json',
    'content-type': 'application/vnd.api+json',
  });
  const importProfile = (attributes: Record<string, unknown>, meta?: unknown) =>
    call(`${klaviyo.baseUrl}/api/profile-import`, { method: 'POST', headers: headers(), body: JSON.stringify({ data: { type: 'profile', attributes, ...(meta ? { meta } : {}) } }) });
  const event = (email: string, uniqueId: string, properties: Record<string, unknown> = {}) =>
    call(`${klaviyo.baseUrl}/api/events`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        data: {
          type: 'event',
          attributes: {
            properties: { source: 'test' },
            metric: { data: { type: 'metric', attributes: { name: 'Flowsmith Content Ready' } } },
            profile: { data: { type: 'profile', attributes: { email, properties } } },
            unique_id: uniqueId,
            time: '2026-11-01T00:00:00Z',
          },
        },
      }),
    });

  it('checks keys: 200 list, 401 unknown key, 403 key without accounts scope, 400 without revision', async () => {
    const ok = await call(`${klaviyo.baseUrl}/api/accounts`, { headers: headers() });
    expect(ok.status).toBe(200);
    expect(ok.json.data[0].type).toBe('account');
    const unknown = await call(`${klaviyo.baseUrl}/api/accounts`, { headers: headers('pk_nope') });
    expect(unknown.status).toBe(401);
    expect(unknown.json.errors[0]).toMatchObject({ code: 'authentication_failed' });
    const noScope = await call(`${klaviyo.baseUrl}/api/accounts`, { headers: headers('pk_noscope') });
    expect(noScope.status).toBe(403);
    expect(noScope.json.errors[0]).toMatchObject({ code: 'permission_denied', detail: expect.stringContaining('accounts:read') });
    const noRevision = await call(`${klaviyo.baseUrl}/api/accounts`, { headers: { authorization: 'Klaviyo-API-Key pk_good' } });
    expect(noRevision.status).toBe(400);
    // Sent without the revision on purpose: the definition refuses it.
    expect(klaviyo.takeViolations().map((violation) => violation.problems.join(' '))).toEqual([expect.stringContaining('revision')]);
  });

  it('creates (201) then updates (200) a profile, merging properties and clearing nulls', async () => {
    const created = await importProfile({ email: 'ann@example.com', first_name: 'Ann', properties: { subject_line1: 'Hi', keep: 1 } });
    expect(created.status).toBe(201);
    expect(created.json.data.attributes.properties).toEqual({ subject_line1: 'Hi', keep: 1 });
    const updated = await importProfile({ email: 'ann@example.com', properties: { subject_line1: null, body: 'B' } });
    expect(updated.status).toBe(200);
    expect(klaviyo.profiles.get('ann@example.com')).toMatchObject({ first_name: 'Ann', properties: { keep: 1, body: 'B' } });
    await importProfile({ email: 'ann@example.com' }, { patch_properties: { unset: ['keep'] } });
    expect(klaviyo.profiles.get('ann@example.com')!.properties).toEqual({ body: 'B' });
  });

  it('refuses a profile import over 100 KB', async () => {
    const response = await importProfile({ email: 'big@example.com', properties: { text: 'x'.repeat(101 * 1024) } });
    expect(response.status).toBe(413);
    expect(klaviyo.profiles.has('big@example.com')).toBe(false);
  });

  it('accepts events with 202 and no body, de-duplicates on unique_id and applies profile properties', async () => {
    const first = await event('bob@example.com', 'evt-1', { subject_line1: 'S' });
    expect(first.status).toBe(202);
    expect(first.text).toBe('');
    expect((await event('bob@example.com', 'evt-1', { subject_line1: 'S2' })).status).toBe(202);
    const recorded = klaviyo.events.filter((e) => e.uniqueId === 'evt-1');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ metric: 'Flowsmith Content Ready', email: 'bob@example.com', apiKey: 'pk_good' });
    expect(klaviyo.profiles.get('bob@example.com')!.properties).toEqual({ subject_line1: 'S' });
  });

  it('forces failures: 503, 429 with Retry-After, 400 about a bad property', async () => {
    klaviyo.failNext({ kind: 'status', status: 503 }, { kind: 'status', status: 429, retryAfterSeconds: 7 }, { kind: 'bad-property', property: 'properties' });
    expect((await importProfile({ email: 'c@example.com' })).status).toBe(503);
    const throttled = await importProfile({ email: 'c@example.com' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('7');
    expect(throttled.json.errors[0].code).toBe('throttled');
    const bad = await importProfile({ email: 'c@example.com' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].source.pointer).toBe('/data/attributes/properties');
    expect((await importProfile({ email: 'c@example.com' })).status).toBe(201);
  });

  it('enforces the per-account burst limit of profile import when asked, then frees it after the window', async () => {
    klaviyo.enforceRateLimits = true;
    now += 120_000;
    const before = klaviyo.throttledCount;
    const statuses: number[] = [];
    for (let i = 0; i < 76; i += 1) statuses.push((await importProfile({ email: `burst${i}@example.com` })).status);
    expect(statuses.slice(0, 75).every((s) => s === 201)).toBe(true);
    expect(statuses[75]).toBe(429);
    expect(klaviyo.throttledCount).toBe(before + 1);
    expect(klaviyo.writesInLastMinute('profile-import')).toBeGreaterThanOrEqual(75);
    now += 1_001;
    expect((await importProfile({ email: 'after@example.com' })).status).toBe(201);
  });

  it('runs a bulk import job after its time, or only once a hold on import jobs is released', async () => {
    const importJob = (email: string) =>
      call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ data: { type: 'profile-bulk-import-job', attributes: { profiles: { data: [{ type: 'profile', attributes: { email, properties: { line: 'L' } } }] } } } }),
      });
    const status = async (id: string) => (await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs/${id}`, { headers: headers() })).json.data.attributes.status as string;
    const free = await importJob('free@example.com');
    expect(free.status).toBe(202);
    now += 301;
    expect(await status(free.json.data.id)).toBe('complete');
    expect(klaviyo.profiles.get('free@example.com')!.properties).toEqual({ line: 'L' });

    const release = klaviyo.holdImportJobs();
    const held = await importJob('held@example.com');
    now += 60_000;
    expect(await status(held.json.data.id)).toBe('queued');
    expect(klaviyo.profiles.has('held@example.com')).toBe(false);
    release();
    expect(await status(held.json.data.id)).toBe('queued');
    now += 301;
    expect(await status(held.json.data.id)).toBe('complete');
    expect(klaviyo.profiles.has('held@example.com')).toBe(true);
  });

  it('enforces the accounts check limit of 1 per second', async () => {
    klaviyo.enforceRateLimits = true;
    now += 120_000;
    expect((await call(`${klaviyo.baseUrl}/api/accounts`, { headers: headers() })).status).toBe(200);
    const second = await call(`${klaviyo.baseUrl}/api/accounts`, { headers: headers() });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
  });

  it('refuses, as Klaviyo would, what its definition refuses, and records why', async () => {
    const unknownField = await importProfile({ email: 'd@example.com', firstName: 'D' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.json.errors[0]).toMatchObject({ code: 'invalid', source: { pointer: '/data/attributes' } });
    expect(klaviyo.profiles.has('d@example.com')).toBe(false);
    const unknownQuery = await call(`${klaviyo.baseUrl}/api/accounts?page[size]=1`, { headers: headers() });
    expect(unknownQuery.status).toBe(400);
    expect(unknownQuery.json.errors[0].source).toEqual({ parameter: 'page[size]' });
    const pageTooLarge = await call(`${klaviyo.baseUrl}/api/profiles?page[size]=101&filter=${encodeURIComponent('equals(email,"a@b.c")')}`, { headers: headers() });
    expect(pageTooLarge.status).toBe(400);
    const wrongType = await call(`${klaviyo.baseUrl}/api/profile-import`, { method: 'POST', headers: { ...headers(), 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(415);
    const noRoute = await call(`${klaviyo.baseUrl}/api/profile-imports`, { method: 'POST', headers: headers(), body: '{}' });
    expect(noRoute.status).toBe(404);
    const undeclared = await call(`${klaviyo.baseUrl}/api/metrics`, { headers: headers() });
    expect(undeclared.status).toBe(404);
    const problems = klaviyo.takeViolations().map((violation) => `${violation.method} ${violation.path}: ${violation.problems.join('; ')}`);
    expect(problems).toEqual([
      expect.stringContaining("'firstName' is not a field the definition has"),
      expect.stringContaining("query parameter 'page[size]' is not one getAccounts takes"),
      expect.stringContaining('page[size]=101 is outside 1..100'),
      expect.stringContaining('content-type is "text/plain"'),
      expect.stringContaining('Klaviyo has no operation POST /api/profile-imports'),
      expect.stringContaining('getMetrics is not in klaviyoOperationsUsed'),
    ]);
  });

  it('answers a key without a scope the operation needs with 403 naming the scopes, per key', async () => {
    klaviyo.setScopes('pk_noscope', ['accounts:read', 'profiles:read', 'profiles:write', 'events:write']);
    const job = await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs`, {
      method: 'POST',
      headers: headers('pk_noscope'),
      body: JSON.stringify({ data: { type: 'profile-bulk-import-job', attributes: { profiles: { data: [{ type: 'profile', attributes: { email: 'e@example.com' } }] } } } }),
    });
    expect(job.status).toBe(403);
    expect(job.json.errors[0]).toMatchObject({ code: 'permission_denied', detail: expect.stringContaining('lists:write') });
    expect((await call(`${klaviyo.baseUrl}/api/lists`, { headers: headers('pk_noscope') })).status).toBe(403);
    expect((await call(`${klaviyo.baseUrl}/api/lists`, { headers: headers() })).status).toBe(200);
    // An owner's key decides its scopes: a refusal for them is an outcome, not a wrong request.
    expect(klaviyo.takeViolations()).toEqual([]);
  });

  it('pages a job’s import errors (20 by default, cursor links on Klaviyo’s host), and ends jobs cancelled or expired', async () => {
    const emails = Array.from({ length: 25 }, (_, index) => `refused${index}@example.com`);
    for (const email of emails) klaviyo.refuseInBulk(email);
    const postJob = async () =>
      (
        await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs`, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify({ data: { type: 'profile-bulk-import-job', attributes: { profiles: { data: emails.map((email) => ({ type: 'profile', attributes: { email } })) } } } }),
        })
      ).json.data.id as string;
    const id = await postJob();
    now += 301;
    const job = await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs/${id}`, { headers: headers() });
    expect(job.json.data.attributes).toMatchObject({ status: 'complete', failed_count: 25 });
    const first = await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs/${id}/import-errors`, { headers: headers() });
    expect(first.json.data).toHaveLength(20);
    const next = new URL(first.json.links.next as string);
    expect(next.origin).toBe('https://a.klaviyo.com');
    const second = await call(`${klaviyo.baseUrl}${next.pathname}${next.search}`, { headers: headers() });
    expect(second.json.data).toHaveLength(5);
    expect(second.json.links.next).toBeUndefined();
    const seen = [...first.json.data, ...second.json.data].map((row: any) => row.attributes.original_payload.email);
    expect(new Set(seen)).toEqual(new Set(emails));

    klaviyo.endImportJobsAs('cancelled');
    const cancelled = await postJob();
    now += 301;
    expect((await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs/${cancelled}`, { headers: headers() })).json.data.attributes.status).toBe('cancelled');
    klaviyo.endImportJobsAs('expired');
    const expired = await postJob();
    now += 301;
    const gone = await call(`${klaviyo.baseUrl}/api/profile-bulk-import-jobs/${expired}`, { headers: headers() });
    expect(gone.status).toBe(404);
    expect(gone.json.errors[0].code).toBe('not_found');
    klaviyo.endImportJobsAs('complete');
  });
});

describe('fake Shopify', () => {
  let shopify: FakeShopify;
  beforeAll(async () => {
    shopify = await startFakeShopify({
      accessTokens: ['shpat_good'],
      clientId: 'cid',
      clientSecret: 'csecret',
      products: { '42': { title: 'Wool Socks', description: 'Warm socks', onlineStoreUrl: 'https://shop.example/socks', featuredImage: { url: 'https://cdn.example/socks.jpg' } } },
    });
  });
  afterAll(() => shopify.close());
  const graphql = (query: string, token = 'shpat_good', variables?: Record<string, unknown>) =>
    call(`${shopify.baseUrl}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'x-shopify-access-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });

  it('answers the shop check and refuses a bad token with 401', async () => {
    const ok = await graphql('{ shop { name myshopifyDomain } }');
    expect(ok.status).toBe(200);
    expect(ok.json.data.shop).toMatchObject({ name: 'Fake Shop', myshopifyDomain: 'test-shop.myshopify.com' });
    expect((await graphql('{ shop { name } }', 'shpat_bad')).status).toBe(401);
  });

  it('answers product queries by gid, inline or as a variable', async () => {
    const inline = await graphql('{ product(id: "gid://shopify/Product/42") { title description onlineStoreUrl featuredImage { url } } }');
    expect(inline.json.data.product).toMatchObject({ title: 'Wool Socks', featuredImage: { url: 'https://cdn.example/socks.jpg' } });
    const variable = await graphql('query P($id: ID!) { product(id: $id) { title } }', 'shpat_good', { id: 'gid://shopify/Product/42' });
    expect(variable.json.data.product.title).toBe('Wool Socks');
    expect((await graphql('{ product(id: "gid://shopify/Product/7") { title } }')).json.data.product).toBeNull();
  });

  it('creates, lists, updates and deletes webhook subscriptions', async () => {
    const created = await graphql(
      'mutation { webhookSubscriptionCreate(topic: CHECKOUTS_UPDATE, webhookSubscription: {uri: "https://app.example/hook", includeFields: ["id", "email"]}) { webhookSubscription { id } userErrors { field message } } }',
    );
    const id = created.json.data.webhookSubscriptionCreate.webhookSubscription.id;
    expect(created.json.data.webhookSubscriptionCreate.userErrors).toEqual([]);
    expect(shopify.webhookSubscriptions.get(id)).toMatchObject({ topic: 'CHECKOUTS_UPDATE', uri: 'https://app.example/hook', includeFields: ['id', 'email'] });
    const duplicate = await graphql('mutation { webhookSubscriptionCreate(topic: CHECKOUTS_UPDATE, webhookSubscription: {uri: "https://app.example/hook"}) { userErrors { message } } }');
    expect(duplicate.json.data.webhookSubscriptionCreate.userErrors).toHaveLength(1);
    const updated = await graphql(
      'mutation U($id: ID!, $sub: WebhookSubscriptionInput!) { webhookSubscriptionUpdate(id: $id, webhookSubscription: $sub) { webhookSubscription { id uri } userErrors { message } } }',
      'shpat_good',
      { id, sub: { uri: 'https://app.example/hook2' } },
    );
    expect(updated.json.data.webhookSubscriptionUpdate.webhookSubscription.uri).toBe('https://app.example/hook2');
    const listed = await graphql('{ webhookSubscriptions(first: 50) { nodes { id topic uri } } }');
    expect(listed.json.data.webhookSubscriptions.nodes.map((n: any) => n.id)).toEqual([id]);
    const deleted = await graphql(`mutation { webhookSubscriptionDelete(id: "${id}") { deletedWebhookSubscriptionId userErrors { message } } }`);
    expect(deleted.json.data.webhookSubscriptionDelete.deletedWebhookSubscriptionId).toBe(id);
    expect(shopify.webhookSubscriptions.size).toBe(0);
  });

  it('exchanges client credentials (form or JSON) for a token that then works, and refuses a wrong secret', async () => {
    const form = await call(`${shopify.baseUrl}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret' }).toString(),
    });
    expect(form.status).toBe(200);
    expect(form.json).toMatchObject({ expires_in: 86399 });
    expect(typeof form.json.scope).toBe('string');
    expect((await graphql('{ shop { name } }', form.json.access_token)).status).toBe(200);
    const json = await call(`${shopify.baseUrl}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret' }),
    });
    expect(json.status).toBe(200);
    const wrong = await call(`${shopify.baseUrl}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'nope' }),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe('invalid_client');
    shopify.expireIssuedTokens();
    expect((await graphql('{ shop { name } }', form.json.access_token)).status).toBe(401);
    expect(shopify.counts['access-token']).toBe(3);
  });

  it("refuses what the 2026-10 schema refuses with Shopify's 200 errors answer, and records it", async () => {
    const unknownField = await graphql('{ shop { nam } }');
    expect(unknownField.status).toBe(200);
    expect(unknownField.json.errors[0].message).toContain('Cannot query field "nam" on type "Shop"');
    expect(unknownField.json.data).toBeUndefined();
    const badTopic = await graphql('mutation ($t: WebhookSubscriptionTopic!) { webhookSubscriptionCreate(topic: $t, webhookSubscription: { uri: "https://a.example" }) { userErrors { message } } }', 'shpat_good', { t: 'CHECKOUTS_ABANDONED' });
    expect(badTopic.json.errors[0].message).toContain('CHECKOUTS_ABANDONED');
    expect(shopify.takeViolations().map((violation) => [violation.side, violation.problems.length > 0])).toEqual([
      ['request', true],
      ['request', true],
    ]);
  });

  it("answers ACCESS_DENIED for a field or webhook topic whose documented scope the token lacks, and lists the token's scopes", async () => {
    shopify.setTokenScopes('shpat_good', ['read_customers']);
    try {
      const product = await graphql('{ product(id: "gid://shopify/Product/42") { title } }');
      expect(product.status).toBe(200);
      expect(product.json).toMatchObject({ data: { product: null }, errors: [{ path: ['product'], extensions: { code: 'ACCESS_DENIED', requiredAccess: '`read_products` access scope.' } }] });
      // The catalogue search the text checks use needs the same scope.
      const search = await graphql('{ products(first: 5, query: "title:Alpine*") { nodes { title } } }');
      expect(search.json).toMatchObject({ errors: [{ path: ['products'], extensions: { code: 'ACCESS_DENIED', requiredAccess: '`read_products` access scope.' } }] });
      const topic = await graphql('mutation { webhookSubscriptionCreate(topic: CARTS_CREATE, webhookSubscription: {uri: "https://app.example/cart"}) { userErrors { message } } }');
      expect(topic.json.errors[0]).toMatchObject({ message: 'Access denied for CARTS_CREATE field. Required access: `read_orders` access scope.', extensions: { code: 'ACCESS_DENIED' } });
      expect(shopify.webhookSubscriptions.size).toBe(0);
      expect(shopify.takeViolations()).toHaveLength(3);
      const granted = await graphql('{ currentAppInstallation { accessScopes { handle } } }');
      expect(granted.json.data.currentAppInstallation.accessScopes.map((scope: { handle: string }) => scope.handle)).toEqual(['read_customers']);
    } finally {
      shopify.setTokenScopes('shpat_good', defaultGrantedScopes);
    }
  });

  it("refuses a client-credentials request of another shape with Shopify's invalid_request", async () => {
    const extra = await call(`${shopify.baseUrl}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret', scope: 'read_orders' }),
    });
    expect(extra.status).toBe(400);
    expect(extra.json.error).toBe('invalid_request');
    const missing = await call(`${shopify.baseUrl}/admin/oauth/access_token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=cid' });
    expect(missing.json.error).toBe('invalid_request');
    expect(shopify.takeViolations().map((violation) => violation.path)).toEqual(['/admin/oauth/access_token', '/admin/oauth/access_token']);
  });

  it('forces failures on one endpoint', async () => {
    shopify.failNext({ kind: 'status', status: 503, on: 'graphql' });
    expect((await graphql('{ shop { name } }')).status).toBe(503);
    expect((await graphql('{ shop { name } }')).status).toBe(200);
  });

  it('signs and sends webhooks with every X-Shopify header', async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const sent = await sendShopifyWebhook(`http://127.0.0.1:${port}/hook`, 'checkouts/update', { token: 'abc' }, 'secret', { 'x-shopify-event-id': 'evt-1' });
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    expect(sent.status).toBe(200);
    const [delivery] = received;
    expect(delivery!.body).toBe('{"token":"abc"}');
    expect(delivery!.headers).toMatchObject({
      'x-shopify-topic': 'checkouts/update',
      'x-shopify-shop-domain': 'test-shop.myshopify.com',
      'x-shopify-api-version': '2026-10',
      'x-shopify-event-id': 'evt-1',
    });
    expect(delivery!.headers['x-shopify-webhook-id']).toEqual(expect.any(String));
    expect(delivery!.headers['x-shopify-triggered-at']).toEqual(expect.any(String));
    const expected = createHmac('sha256', 'secret').update('{"token":"abc"}').digest('base64');
    expect(delivery!.headers['x-shopify-hmac-sha256']).toBe(expected);
    expect(signShopifyWebhook('{"token":"abc"}', 'secret')).toBe(expected);
  });
});
