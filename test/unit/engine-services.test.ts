import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResponse } from '../../src/server/integrations/openai/openai-responses.ts';
import { MODERATION_MODEL, moderateTexts } from '../../src/server/integrations/openai/openai-moderations.ts';
import { createEvent, importProfile, KLAVIYO_REVISION } from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';

let openai: FakeOpenAI;
let klaviyo: FakeKlaviyo;
beforeAll(async () => {
  openai = await startFakeOpenAI({ validKeys: ['sk-unit-key-0123456789'] });
  klaviyo = await startFakeKlaviyo({ validKeys: ['pk_unit_key_0123456789'] });
});
afterAll(async () => {
  await openai?.close();
  await klaviyo?.close();
});

const openaiConnection = () => ({ baseUrl: openai.apiBaseUrl, apiKey: 'sk-unit-key-0123456789', timeoutMs: 2_000 });
const klaviyoConnection = () => ({ baseUrl: klaviyo.baseUrl, apiKey: 'pk_unit_key_0123456789', timeoutMs: 2_000 });
const request = { model: 'gpt-5-mini', instructions: 'Be brief.', input: 'Subject for shoes', maxOutputTokens: 200 };

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('OpenAI moderation', () => {
  it('checks many texts in one call and answers for each, in order, with the categories that flagged it', async () => {
    openai.flagTextsContaining('you idiot');
    const before = openai.requests.length;
    const verdicts = await moderateTexts(openaiConnection(), ['Your cart misses you.', 'Come back, you idiot.', 'Free shipping today.']);
    expect(verdicts).toEqual([
      { flagged: false, categories: [] },
      { flagged: true, categories: ['harassment'] },
      { flagged: false, categories: [] },
    ]);
    const calls = openai.requests.slice(before);
    expect(calls.map((call) => [call.method, call.path, call.status])).toEqual([['POST', '/v1/moderations', 200]]);
    expect(calls[0]!.body).toEqual({ model: MODERATION_MODEL, input: ['Your cart misses you.', 'Come back, you idiot.', 'Free shipping today.'] });
  });

  it('makes no call for no texts, and fails as every OpenAI call does when it cannot be answered', async () => {
    const before = openai.requests.length;
    expect(await moderateTexts(openaiConnection(), [])).toEqual([]);
    expect(openai.requests.length).toBe(before);
    openai.failNext({ kind: 'status', status: 503, on: 'moderations' });
    const error = await failure(moderateTexts(openaiConnection(), ['Hello']));
    expect(error.retryable).toBe(true);
    const refused = await failure(moderateTexts({ ...openaiConnection(), apiKey: 'sk-unknown-0123456789' }, ['Hello']));
    expect(refused.retryable).toBe(false);
    expect(refused.message).not.toContain('sk-unknown-0123456789');
  });
});

describe('OpenAI Responses', () => {
  it('sends the documented body and finds the text after a reasoning item', async () => {
    openai.resetCounters();
    const result = await createResponse(openaiConnection(), request);
    expect(result.text).toBe('AI(gpt-5-mini): Subject for shoes');
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    expect(openai.requests[0]!.body).toEqual({ model: 'gpt-5-mini', instructions: 'Be brief.', input: 'Subject for shoes', max_output_tokens: 200, store: false });
  });

  it('reports an answer without text and why', async () => {
    openai.failNext({ kind: 'no-text' });
    expect(await createResponse(openaiConnection(), request)).toMatchObject({ text: null, noTextReason: 'incomplete: max_output_tokens' });
  });

  it('never takes an answer cut off at its output limit for a complete one, even when it carries text', async () => {
    openai.failNext({ kind: 'incomplete', partialText: 'Your cart is wai' });
    const cut = await createResponse(openaiConnection(), request);
    expect(cut).toMatchObject({ text: null, incomplete: 'max_output_tokens' });
    // The tokens were billed all the same.
    expect(cut.usage.outputTokens).toBe(200);
    openai.failNext({ kind: 'incomplete', reason: 'content_filter', partialText: '{"text_1":"Hi","text_2":"Yo"}' });
    expect(await createResponse(openaiConnection(), request)).toMatchObject({ text: null, incomplete: 'content_filter' });
  });

  it('fails an answer whose status a finished call never has, instead of using its text', async () => {
    for (const status of ['in_progress', 'queued', 'cancelled'] as const) {
      openai.failNext({ kind: 'response-status', status });
      const error = await failure(createResponse(openaiConnection(), request));
      expect(error).toMatchObject({ code: 'invalid_response', retryable: false });
      expect(error.message).toContain(`"${status}"`);
    }
  });

  it('retries a failed response only when OpenAI says its own side failed', async () => {
    openai.failNext({ kind: 'failed', code: 'server_error', message: 'The model crashed.' });
    expect(await failure(createResponse(openaiConnection(), request))).toMatchObject({ retryable: true, message: 'OpenAI: The model crashed.' });
    openai.failNext({ kind: 'failed', code: 'invalid_prompt', message: 'Invalid prompt: flagged.' });
    expect(await failure(createResponse(openaiConnection(), request))).toMatchObject({ retryable: false, code: 'bad_request', message: 'OpenAI: Invalid prompt: flagged.' });
  });

  it('maps a rate limit to retryable with retry-after-ms, and insufficient_quota to permanent', async () => {
    openai.failNext({ kind: 'status', status: 429, retryAfterMs: 750, retryAfterSeconds: 3 });
    expect(await failure(createResponse(openaiConnection(), request))).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 750 });
    openai.failNext({ kind: 'insufficient_quota' });
    const quota = await failure(createResponse(openaiConnection(), request));
    expect(quota).toMatchObject({ code: 'insufficient_quota', retryable: false, status: 429 });
    expect(quota.message).toMatch(/^OpenAI: You exceeded your current quota/);
  });

  it('never puts the key into the message, and treats no answer as retryable', async () => {
    const error = await failure(createResponse({ ...openaiConnection(), apiKey: 'sk-wrong' }, request));
    expect(error).toMatchObject({ code: 'unauthorized', retryable: false });
    expect(error.message).not.toContain('sk-wrong');
    openai.failNext({ kind: 'hang' });
    expect(await failure(createResponse({ ...openaiConnection(), timeoutMs: 200 }, request))).toMatchObject({ code: 'timeout', retryable: true });
    const closed = await failure(createResponse({ ...openaiConnection(), baseUrl: 'http://127.0.0.1:9' }, request));
    expect(closed).toMatchObject({ code: 'network', retryable: true });
  });
});

describe('Klaviyo profiles and events', () => {
  it('imports a profile with JSON:API headers of the pinned revision', async () => {
    const result = await importProfile(klaviyoConnection(), { email: 'ada@example.com', firstName: 'Ada', lastName: null, properties: { subject_line1: 'Hi' } });
    expect(result.created).toBe(true);
    const sent = klaviyo.requests.at(-1)!;
    expect(sent.headers).toMatchObject({ revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json', authorization: 'Klaviyo-API-Key pk_unit_key_0123456789' });
    expect(sent.body).toEqual({ data: { type: 'profile', attributes: { email: 'ada@example.com', first_name: 'Ada', properties: { subject_line1: 'Hi' } } } });
    expect((await importProfile(klaviyoConnection(), { email: 'ada@example.com', firstName: null, lastName: null, properties: {} })).created).toBe(false);
  });

  it('sends an event with a unique id', async () => {
    await createEvent(klaviyoConnection(), { metricName: 'AI content ready', email: 'ada@example.com', properties: { a: 'b' }, uniqueId: 'evt-1', time: '2026-11-20T10:00:00Z' });
    expect(klaviyo.events.at(-1)).toMatchObject({ metric: 'AI content ready', uniqueId: 'evt-1', properties: { a: 'b' } });
  });

  it('maps 400 to permanent with the pointer, and 429 to retryable with Retry-After', async () => {
    klaviyo.failNext({ kind: 'bad-property', property: 'x' });
    const bad = await failure(importProfile(klaviyoConnection(), { email: 'a@example.com', firstName: null, lastName: null, properties: {} }));
    expect(bad).toMatchObject({ code: 'bad_request', retryable: false, status: 400 });
    expect(bad.message).toContain('(/data/attributes/x)');
    klaviyo.failNext({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    expect(await failure(importProfile(klaviyoConnection(), { email: 'a@example.com', firstName: null, lastName: null, properties: {} }))).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      retryAfterMs: 7_000,
    });
  });
});
