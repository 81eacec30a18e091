import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLInputObjectType } from 'graphql';
import {
  klaviyoEventNameSchema,
  klaviyoPropertySchema,
  SHOPIFY_WEBHOOK_URI_PROTOCOL,
  shopifyWebhookAddressProblem,
} from '../../src/shared/flows/flow-schemas.ts';
import {
  KLAVIYO_MAX_EVENT_PROPERTIES,
  MAX_ASSISTANTS_PER_FLOW,
  MAX_KLAVIYO_EVENT_NAME_LENGTH,
  MAX_KLAVIYO_PROPERTY_LENGTH,
} from '../../src/shared/flows/flow-limits.ts';
import {
  KLAVIYO_MAX_EVENT_STRING_BYTES,
  KLAVIYO_MAX_PROFILE_WRITE_BYTES,
  MAX_OUTPUT_TOKENS_PER_TEXT,
  MAX_TEXT_LENGTH,
  OPENAI_MIN_MAX_OUTPUT_TOKENS,
} from '../../src/shared/flows/text-rules.ts';
import { flowValidationMessages as m, vendorLimitMessages } from '../../src/shared/flows/flow-messages.ts';
import { experimentPropertyNames } from '../../src/shared/flows/flow-types.ts';
import {
  createEvent,
  importProfile,
  IMPORT_ERRORS_PAGE_SIZE,
  MAX_EMAILS_PER_LOOKUP,
  MAX_EVENTS_PER_BULK_JOB,
  MAX_IMPORT_JOB_BYTES,
  MAX_PROFILES_PER_IMPORT_JOB,
} from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';
import { SHOPIFY_API_VERSION } from '../../src/server/integrations/shopify/shopify-admin.ts';
import { shopifyWebhookUrlFor } from '../../src/server/flows/webhook-url.ts';
import { defaultEngineOptions } from '../../src/server/engine/spine/engine.ts';
import { groupRequest } from '../../src/server/engine/writing/text-generation.ts';
import type { PipelineContext } from '../../src/server/engine/spine/pipeline-context.ts';
import { defaultAssistant } from '../../src/shared/flows/flow-schemas.ts';
import { checkKlaviyoType, klaviyoDocumentedLimits, klaviyoOperation } from '../contracts/klaviyo-definition.ts';
import { MIN_MAX_OUTPUT_TOKENS, openAiContract } from '../contracts/openai-contract.ts';
import { adminSchema } from '../contracts/shopify-definition.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import type { RecordedRequest } from '../fakes/fake-server.ts';

/**
 * Every limit Flowsmith holds what it sends to a vendor to, at its boundary (the largest
 * value the vendor takes is accepted, the next refused, with the vendor's reason), and
 * each held to the vendor's definition as installed (docs/decisions/0045-limits-from-vendor-definitions.md).
 */
const documented = klaviyoDocumentedLimits();
const key = 'pk_limits_key_0123456789';

let klaviyo: FakeKlaviyo;
beforeAll(async () => {
  klaviyo = await startFakeKlaviyo({ validKeys: [key] });
});
afterAll(async () => {
  await klaviyo?.close();
});

const connection = () => ({ baseUrl: klaviyo.baseUrl, apiKey: key, timeoutMs: 2_000 });

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

function issuesOf(result: { success: boolean; error?: { issues: Array<{ message: string }> } }): string[] {
  return result.success ? [] : (result.error?.issues.map((issue) => issue.message) ?? []);
}

describe('the Klaviyo event name (a metric name)', () => {
  it("is shorter than 128 characters, as Klaviyo's definition says", () => {
    expect(documented.metricNameShorterThan).toBe(128);
    expect(MAX_KLAVIYO_EVENT_NAME_LENGTH).toBe(documented.metricNameShorterThan - 1);
  });

  it('of 127 characters is accepted, of 128 refused with Klaviyo’s reason', () => {
    expect(klaviyoEventNameSchema.safeParse('E'.repeat(127))).toEqual({ success: true, data: 'E'.repeat(127) });
    const refused = klaviyoEventNameSchema.safeParse('E'.repeat(128));
    expect(issuesOf(refused)).toEqual([m.klaviyoEventNameTooLong(128)]);
    expect(m.klaviyoEventNameTooLong(128)).toContain('Klaviyo accepts event names shorter than 128 characters');
  });

  it('is refused by the stand-in Klaviyo from 128 characters on, as Klaviyo refuses it', async () => {
    const event = (metricName: string) => ({ metricName, email: 'ana@example.com', properties: { subject: 'Hi' }, uniqueId: `u-${metricName.length}`, time: '2026-11-20T10:00:00.000Z' });
    await createEvent(connection(), event('E'.repeat(127)));
    const refused = await failure(createEvent(connection(), event('E'.repeat(128))));
    expect(refused).toMatchObject({ code: 'bad_request', status: 400 });
    expect(refused.message).toContain('Metric name must be less than 128 characters');
    expect(klaviyo.takeViolations().flatMap((violation) => violation.problems)).toEqual([
      'createEvent: the metric name has 128 characters; the definition (MetricCreateQueryResourceObject.attributes.name) takes fewer than 128',
    ]);
  });
});

describe('a profile write (all texts of an event)', () => {
  it('is at most 100 KB, as Klaviyo’s definition of POST /api/profile-import says', () => {
    expect(KLAVIYO_MAX_PROFILE_WRITE_BYTES).toBe(documented.profileWriteMaxBytes);
    expect(KLAVIYO_MAX_PROFILE_WRITE_BYTES).toBe(102_400);
  });

  it('of 102,400 bytes is sent, of 102,401 not sent, with Klaviyo’s reason', async () => {
    const email = 'limit@example.com';
    const bare = JSON.stringify({ data: { type: 'profile', attributes: { email, properties: { text: '' } } } });
    const profile = (bytes: number) => ({ email, firstName: null, lastName: null, properties: { text: 'a'.repeat(bytes - Buffer.byteLength(bare)) } });

    await importProfile(connection(), profile(KLAVIYO_MAX_PROFILE_WRITE_BYTES));
    const sent = klaviyo.requests.filter((request) => request.path === '/api/profile-import');
    expect(sent.map((request) => Buffer.byteLength(request.rawBody))).toEqual([KLAVIYO_MAX_PROFILE_WRITE_BYTES]);

    const refused = await failure(importProfile(connection(), profile(KLAVIYO_MAX_PROFILE_WRITE_BYTES + 1)));
    expect(refused).toMatchObject({ code: 'bad_request', kind: 'permanent' });
    expect(refused.message).toBe(`Klaviyo: ${vendorLimitMessages.klaviyoProfileWriteTooLarge(102_401, 102_400)}`);
    expect(refused.message).toContain('Klaviyo accepts at most 102,400 bytes (100 KB) in one profile write');
    expect(klaviyo.requests.filter((request) => request.path === '/api/profile-import')).toHaveLength(1);
  });
});

describe("a Klaviyo event's properties", () => {
  it('are at most 400, and a flow sends far fewer: its texts and its experiment’s two', () => {
    expect(KLAVIYO_MAX_EVENT_PROPERTIES).toBe(documented.eventMaxProperties);
    expect(MAX_ASSISTANTS_PER_FLOW + Object.keys(experimentPropertyNames('post_purchase')).length).toBeLessThanOrEqual(KLAVIYO_MAX_EVENT_PROPERTIES);
  });

  it('hold strings of at most 100 KB, which the longest text in the widest characters stays within', () => {
    expect(KLAVIYO_MAX_EVENT_STRING_BYTES).toBe(documented.eventMaxStringBytes);
    expect(KLAVIYO_MAX_EVENT_STRING_BYTES).toBe(documented.bulkEventsMaxStringBytes);
    // Three bytes of UTF-8 is the most one UTF-16 unit takes (a pair takes four for two).
    expect(Buffer.byteLength('\uffff'.repeat(MAX_TEXT_LENGTH))).toBe(MAX_TEXT_LENGTH * 3);
    expect(MAX_TEXT_LENGTH * 3).toBeLessThanOrEqual(KLAVIYO_MAX_EVENT_STRING_BYTES);
  });

  it('with a string of 102,400 bytes is taken by the stand-in Klaviyo, of 102,401 refused', async () => {
    const event = (bytes: number) => ({ metricName: 'Texts ready', email: 'ana@example.com', properties: { text: 'a'.repeat(bytes) }, uniqueId: `s-${bytes}`, time: '2026-11-20T10:00:00.000Z' });
    await createEvent(connection(), event(KLAVIYO_MAX_EVENT_STRING_BYTES));
    expect((await failure(createEvent(connection(), event(KLAVIYO_MAX_EVENT_STRING_BYTES + 1)))).status).toBe(400);
    expect(klaviyo.takeViolations()).toHaveLength(1);
  });
});

describe("Klaviyo's bulk jobs and pages", () => {
  it('are sized as the definition of each operation says', () => {
    expect(MAX_PROFILES_PER_IMPORT_JOB).toBe(documented.importJobMaxProfiles);
    expect(MAX_IMPORT_JOB_BYTES).toBe(documented.importJobMaxBytes);
    expect(MAX_EVENTS_PER_BULK_JOB).toBe(documented.bulkEventsMaxEvents);
    expect(MAX_EMAILS_PER_LOOKUP).toBe(klaviyoOperation('getProfiles').pageSizeMax);
    expect(IMPORT_ERRORS_PAGE_SIZE).toBe(klaviyoOperation('getErrorsForBulkImportProfilesJob').pageSizeMax);
  });
});

describe('a Klaviyo profile property name', () => {
  it("has no limit in Klaviyo's definition: the 100 characters, the characters and the $ rule are Flowsmith's", () => {
    const write = (name: string) => ({ data: { type: 'profile', attributes: { email: 'ana@example.com', properties: { [name]: 'Hi' } } } });
    expect(checkKlaviyoType('ProfileUpsertQuery', write(`${'p'.repeat(300)} ✓/$`)).ok).toBe(true);
    expect(klaviyoPropertySchema.safeParse('p'.repeat(MAX_KLAVIYO_PROPERTY_LENGTH)).success).toBe(true);
    expect(issuesOf(klaviyoPropertySchema.safeParse('p'.repeat(MAX_KLAVIYO_PROPERTY_LENGTH + 1)))).toEqual([m.klaviyoPropertyTooLong(MAX_KLAVIYO_PROPERTY_LENGTH)]);
    expect(issuesOf(klaviyoPropertySchema.safeParse('$subject'))).toEqual([m.klaviyoPropertyDollar, m.klaviyoPropertyCharacters]);
  });
});

describe("OpenAI's max_output_tokens", () => {
  const responses = (maxOutputTokens: number): RecordedRequest => ({
    method: 'POST',
    path: '/v1/responses',
    query: new URLSearchParams(),
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    rawBody: '',
    body: { model: 'gpt-5-mini', input: 'Write.', max_output_tokens: maxOutputTokens, store: false },
    receivedAt: 0,
    answeredAt: null,
    status: null,
  });

  it('is at least 16, as OpenAI enforces: 16 is taken, 15 refused', () => {
    expect(OPENAI_MIN_MAX_OUTPUT_TOKENS).toBe(MIN_MAX_OUTPUT_TOKENS);
    expect(openAiContract.checkRequest(responses(OPENAI_MIN_MAX_OUTPUT_TOKENS))).toBeUndefined();
    expect(openAiContract.checkRequest(responses(OPENAI_MIN_MAX_OUTPUT_TOKENS - 1))?.reply.body).toMatchObject({ error: { code: 'integer_below_min_value', param: 'max_output_tokens' } });
  });

  it('is at least 16 in every call the engine makes, from one text to a flow’s most', () => {
    expect(defaultEngineOptions.maxOutputTokens).toBe(MAX_OUTPUT_TOKENS_PER_TEXT);
    const context = { options: defaultEngineOptions } as unknown as PipelineContext;
    const asked = Array.from({ length: MAX_ASSISTANTS_PER_FLOW }, (_, index) => {
      const group = Array.from({ length: index + 1 }, () => ({ assistant: defaultAssistant, model: 'gpt-5-mini', instructions: null, input: 'Write.' }));
      return groupRequest(context, { id: 'flow' }, group).maxOutputTokens;
    });
    expect(Math.min(...asked)).toBeGreaterThanOrEqual(OPENAI_MIN_MAX_OUTPUT_TOKENS);
  });
});

describe("a Shopify webhook subscription's address", () => {
  it("is an HTTPS URL, as the Admin schema's WebhookSubscriptionInput.uri says", () => {
    const input = adminSchema(SHOPIFY_API_VERSION).getType('WebhookSubscriptionInput');
    expect(input).toBeInstanceOf(GraphQLInputObjectType);
    const uri = ((input as GraphQLInputObjectType).getFields().uri!.description ?? '').replace(/\s+/g, ' ');
    expect(uri).toContain(`Supports an ${SHOPIFY_WEBHOOK_URI_PROTOCOL.toUpperCase()} URL`);
  });

  it('of https:// is taken, of http:// refused with Shopify’s reason', () => {
    expect(shopifyWebhookAddressProblem('https://hooks.example.com/api/webhooks/post_purchase/key')).toBeNull();
    expect(shopifyWebhookAddressProblem('http://hooks.example.com/api/webhooks/post_purchase/key')).toBe(vendorLimitMessages.shopifyWebhookNeedsHttps);
    expect(vendorLimitMessages.shopifyWebhookNeedsHttps).toContain('Shopify delivers webhooks only to https:// addresses');
    expect(shopifyWebhookUrlFor('https://hooks.example.com', 'post_purchase', 'key')).toEqual({ ok: true, url: 'https://hooks.example.com/api/webhooks/post_purchase/key' });
    expect(shopifyWebhookUrlFor('http://hooks.example.com', 'post_purchase', 'key')).toEqual({ ok: false, reason: vendorLimitMessages.shopifyWebhookNeedsHttps });
  });
});
