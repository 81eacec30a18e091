import { describe, expect, it } from 'vitest';
import {
  decideAcceptance,
  decideFlowSignature,
  decideParsedBody,
  decidePixelShape,
  decideShopifySignature,
  decideShopifySignaturePresent,
  decideUnparsedBody,
  decideUnreadBody,
  decideWebhookBody,
} from '../../src/server/intake/intake-decisions.ts';
import { eventOutcomeMessages, rejectionReasons, webhookMessages } from '../../src/shared/events/event-messages.ts';
import { signatureAnswerMessages, signatureRejectionReasons } from '../../src/shared/flows/flow-signature-messages.ts';
import { defaultJsonLimits } from '../../src/server/platform/json-text.ts';

// What the intake decides about a request, on plain facts: no app, no database.

const arrived = new Date('2026-11-20T10:00:00Z');

describe('an accepted event', () => {
  it('is received at once when its flow has no wait', () => {
    expect(decideAcceptance({ isActive: true }, 0, arrived)).toEqual({ kind: 'accept', status: 'received', processAfter: null, reason: null });
  });

  it("waits for its timer, which ends exactly the flow's minutes after it arrived", () => {
    expect(decideAcceptance({ isActive: true }, 30, arrived)).toEqual({ kind: 'accept', status: 'waiting', processAfter: new Date('2026-11-20T10:30:00Z'), reason: null });
  });

  it('is kept as skipped when its flow is off, saying so', () => {
    expect(decideAcceptance({ isActive: false }, 0, arrived)).toEqual({ kind: 'accept', status: 'skipped', processAfter: null, reason: eventOutcomeMessages.flowInactive });
    expect(eventOutcomeMessages.flowInactive).toBe('The flow was inactive when the event arrived.');
  });

  it('keeps the time its timer would have ended when its flow is off', () => {
    expect(decideAcceptance({ isActive: false }, 30, arrived)).toMatchObject({ status: 'skipped', processAfter: new Date('2026-11-20T10:30:00Z') });
  });
});

describe('a body refused before it was read', () => {
  it('is refused as too large for a webhook', () => {
    expect(decideUnreadBody('too_large', 'webhook', 'application/json')).toEqual({
      kind: 'refuse',
      refusal: { code: 'body_too_large', answerCode: 'body_too_large', httpStatus: 413, reason: rejectionReasons.bodyTooLarge, message: webhookMessages.bodyTooLarge },
    });
  });

  it("is refused as too large for the pixel, with the pixel's limit", () => {
    expect(decideUnreadBody('too_large', 'pixel', 'text/plain')).toMatchObject({
      refusal: { code: 'body_too_large', httpStatus: 413, reason: rejectionReasons.pixelBodyTooLarge, message: webhookMessages.pixelBodyTooLarge },
    });
  });

  it('is refused for its content type, naming at most 100 characters of it', () => {
    const contentType = `application/${'x'.repeat(200)}`;
    expect(decideUnreadBody('unsupported_media_type', 'webhook', contentType)).toMatchObject({
      refusal: { code: 'unsupported_media_type', httpStatus: 415, reason: rejectionReasons.unsupportedMediaType(contentType.slice(0, 100)), message: webhookMessages.unsupportedMediaType },
    });
    expect(decideUnreadBody('unsupported_media_type', 'webhook', null)).toMatchObject({ refusal: { reason: rejectionReasons.unsupportedMediaType('') } });
  });
});

describe("a webhook's body", () => {
  it('is refused when empty', () => {
    expect(decideWebhookBody(0)).toMatchObject({ kind: 'refuse', refusal: { code: 'empty_body', httpStatus: 400, reason: rejectionReasons.emptyBody, message: webhookMessages.emptyBody } });
  });

  it('goes on with a single byte', () => {
    expect(decideWebhookBody(1)).toEqual({ kind: 'go_on' });
  });

  it.each([
    ['malformed', 'Unexpected token', 'malformed_json', rejectionReasons.malformedJson('Unexpected token'), webhookMessages.malformedJson],
    ['too_deep', '', 'too_deep', rejectionReasons.tooDeep(defaultJsonLimits.maxDepth), webhookMessages.tooDeep(defaultJsonLimits.maxDepth)],
    ['too_many_members', '', 'too_many_members', rejectionReasons.tooManyMembers(defaultJsonLimits.maxMembers), webhookMessages.tooManyMembers(defaultJsonLimits.maxMembers)],
  ] as const)('is refused when the JSON is %s', (problem, detail, code, reason, message) => {
    expect(decideUnparsedBody(problem, detail)).toEqual({ kind: 'refuse', refusal: { code, answerCode: code, httpStatus: 400, reason, message } });
  });

  it.each([[[1, 2]], [null], ['text'], [42]])('is refused when the JSON is %j, not an object', (payload) => {
    expect(decideParsedBody(payload)).toMatchObject({ kind: 'refuse', refusal: { code: 'not_an_object', httpStatus: 400, reason: rejectionReasons.notAnObject } });
  });

  it('goes on with an object', () => {
    expect(decideParsedBody({ email: 'kim@example.com' })).toEqual({ kind: 'go_on' });
  });
});

describe("the pixel's shape", () => {
  it('is refused naming its first three problems', () => {
    const issues = [
      { path: ['name'], message: 'Required' },
      { path: ['data', 'product', 'id'], message: 'Expected string' },
      { path: [], message: 'Too big' },
      { path: ['timestamp'], message: 'Invalid' },
    ];
    expect(decidePixelShape(issues)).toMatchObject({
      kind: 'refuse',
      refusal: {
        code: 'not_pixel_event',
        httpStatus: 400,
        reason: rejectionReasons.notPixelEvent('name: Required; data.product.id: Expected string; body: Too big'),
        message: webhookMessages.notPixelEvent,
      },
    });
  });
});

describe("Shopify's signature", () => {
  it('is required of a request that claims to be Shopify, answered as signature_required', () => {
    expect(decideShopifySignaturePresent('')).toEqual({
      kind: 'refuse',
      refusal: { code: 'shopify_unsigned', answerCode: 'signature_required', httpStatus: 401, reason: rejectionReasons.shopifyUnsigned, message: webhookMessages.shopifyUnsigned },
    });
  });

  it('is missing when repeated empty headers were joined', () => {
    expect(decideShopifySignaturePresent(', ,')).toMatchObject({ kind: 'refuse', refusal: { code: 'shopify_unsigned' } });
  });

  it('is checked when present', () => {
    expect(decideShopifySignaturePresent('c2lnbmF0dXJl')).toEqual({ kind: 'go_on' });
  });

  it('cannot be checked without a saved secret, answered as a bad signature', () => {
    expect(decideShopifySignature({ secretCount: 0, valid: false, topicNamed: true })).toEqual({
      kind: 'refuse',
      refusal: { code: 'no_signing_secret', answerCode: 'bad_signature', httpStatus: 401, reason: rejectionReasons.noSigningSecret, message: webhookMessages.badSignature },
    });
  });

  it('is refused when it does not match', () => {
    expect(decideShopifySignature({ secretCount: 2, valid: false, topicNamed: true })).toEqual({
      kind: 'refuse',
      refusal: { code: 'bad_signature', answerCode: 'bad_signature', httpStatus: 401, reason: rejectionReasons.signatureMismatch, message: webhookMessages.badSignature },
    });
  });

  it('still needs the topic named when it matches', () => {
    expect(decideShopifySignature({ secretCount: 1, valid: true, topicNamed: false })).toEqual({
      kind: 'refuse',
      refusal: { code: 'topic_missing', answerCode: 'topic_missing', httpStatus: 400, reason: rejectionReasons.shopifyTopicMissing, message: webhookMessages.shopifyTopicMissing },
    });
  });

  it('lets a matching, named request in', () => {
    expect(decideShopifySignature({ secretCount: 1, valid: true, topicNamed: true })).toEqual({ kind: 'go_on' });
  });
});

describe("a flow's own signature", () => {
  const age = () => 900;

  it.each(['valid', 'not_required'] as const)('lets a request in when it is %s', (outcome) => {
    expect(decideFlowSignature(outcome, age)).toEqual({ kind: 'go_on' });
  });

  it.each([
    ['missing', 'signature_required', signatureRejectionReasons.missing, signatureAnswerMessages.missing],
    ['malformed', 'bad_signature', signatureRejectionReasons.malformed, signatureAnswerMessages.malformed],
    ['expired', 'signature_expired', signatureRejectionReasons.expired(900), signatureAnswerMessages.expired],
    ['mismatch', 'bad_signature', signatureRejectionReasons.mismatch, signatureAnswerMessages.mismatch],
    ['unreadable', 'bad_signature', signatureRejectionReasons.unreadable, signatureAnswerMessages.mismatch],
  ] as const)('refuses a request whose signature is %s', (outcome, code, reason, message) => {
    expect(decideFlowSignature(outcome, age)).toEqual({ kind: 'refuse', refusal: { code, answerCode: code, httpStatus: 401, reason, message } });
  });
});
