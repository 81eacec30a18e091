import { eventOutcomeMessages, rejectionReasons, webhookMessages } from '../../shared/events/event-messages.ts';
import { signatureAnswerMessages, signatureRejectionReasons } from '../../shared/flows/flow-signature-messages.ts';
import { defaultJsonLimits, type JsonTextProblem } from '../platform/json-text.ts';
import type { FlowSignatureCheck } from './flow-signature.ts';
import { apiErrorCodes, type ServerErrorCode } from '../../shared/api/error-codes.ts';

/**
 * What the intake decides about a request, apart from reading and storing it
 * (docs/decisions/0035-pure-pipeline-core.md): plain facts in (what the body is, what the
 * signature check found), a decision out. intake.ts looks the facts up, records a
 * refusal on the flow and answers with it, or stores the accepted event as decided here.
 * Duplicates are found where the event is stored (one statement, decision 0031), so the
 * intake's part of them is only to answer with the kept event.
 */
export type IntakeDecision =
  /** Nothing refuses the request at this check: the intake goes on to the next. */
  | { kind: 'go_on' }
  /** The request is refused: recorded on the flow with `reason`, answered with `httpStatus`. */
  | { kind: 'refuse'; refusal: Refusal }
  /** The event is stored, in the status its flow and its timer give it. */
  | { kind: 'accept'; status: 'received' | 'waiting' | 'skipped'; processAfter: Date | null; reason: string | null };

export interface Refusal {
  /** The short code of the refusal: the metric's label, the log's reason. */
  code: string;
  /** What the owner's event log says. */
  reason: string;
  httpStatus: 400 | 401 | 413 | 415;
  /** The answer's error code: the refusal's code, or a broader one where the sender need not know more. */
  answerCode: ServerErrorCode;
  /** What the sender is told. */
  message: string;
}

type Of<K extends IntakeDecision['kind']> = Extract<IntakeDecision, { kind: K }>;

function refuse(answerCode: ServerErrorCode, reason: string, httpStatus: Refusal['httpStatus'], message: string): Of<'refuse'> {
  return { kind: 'refuse', refusal: { code: answerCode, reason, httpStatus, answerCode, message } };
}

/** A refusal recorded under its own code, where the sender is answered with the broader one. */
function recordedAs(code: string, decision: Of<'refuse'>): Of<'refuse'> {
  return { kind: 'refuse', refusal: { ...decision.refusal, code } };
}

/**
 * An accepted event's status: skipped when its flow is off, waiting when it starts an
 * abandonment timer (until `waitMinutes` after it arrived), received otherwise.
 */
export function decideAcceptance(flow: { isActive: boolean }, waitMinutes: number, receivedAt: Date): Of<'accept'> {
  const processAfter = waitMinutes > 0 ? new Date(receivedAt.getTime() + waitMinutes * 60_000) : null;
  if (!flow.isActive) return { kind: 'accept', status: 'skipped', processAfter, reason: eventOutcomeMessages.flowInactive };
  return { kind: 'accept', status: processAfter ? 'waiting' : 'received', processAfter, reason: null };
}

/** A body refused before it was read, by its size or its type (the HTTP layer saw it). */
export function decideUnreadBody(refusal: 'too_large' | 'unsupported_media_type', kind: 'webhook' | 'pixel', contentType: string | null): Of<'refuse'> {
  if (refusal === 'too_large') {
    return kind === 'pixel'
      ? refuse(apiErrorCodes.body_too_large, rejectionReasons.pixelBodyTooLarge, 413, webhookMessages.pixelBodyTooLarge)
      : refuse(apiErrorCodes.body_too_large, rejectionReasons.bodyTooLarge, 413, webhookMessages.bodyTooLarge);
  }
  return refuse(apiErrorCodes.unsupported_media_type, rejectionReasons.unsupportedMediaType(contentType?.slice(0, 100) ?? ''), 415, webhookMessages.unsupportedMediaType);
}

export function decideWebhookBody(byteLength: number): Of<'refuse' | 'go_on'> {
  return byteLength === 0 ? refuse(apiErrorCodes.empty_body, rejectionReasons.emptyBody, 400, webhookMessages.emptyBody) : { kind: 'go_on' };
}

/**
 * A request claiming to be Shopify must carry X-Shopify-Hmac-Sha256 (docs/decisions/
 * 0013-who-may-send-what.md). Repeated empty headers arrive joined as ", ": that is no
 * signature either. Only a signed request is worth checking against the owner's secrets.
 */
export function decideShopifySignaturePresent(signature: string): Of<'refuse' | 'go_on'> {
  if (signature.replace(/[\s,]/g, '') === '') return recordedAs('shopify_unsigned', refuse(apiErrorCodes.signature_required, rejectionReasons.shopifyUnsigned, 401, webhookMessages.shopifyUnsigned));
  return { kind: 'go_on' };
}

/**
 * A signed Shopify request: checked by one of the owner's Shopify secrets (the current
 * one, or the previous one during a rotation), and naming its topic.
 */
export function decideShopifySignature(check: { secretCount: number; valid: boolean; topicNamed: boolean }): Of<'refuse' | 'go_on'> {
  if (check.secretCount === 0) return recordedAs('no_signing_secret', refuse(apiErrorCodes.bad_signature, rejectionReasons.noSigningSecret, 401, webhookMessages.badSignature));
  if (!check.valid) return refuse(apiErrorCodes.bad_signature, rejectionReasons.signatureMismatch, 401, webhookMessages.badSignature);
  if (!check.topicNamed) return refuse(apiErrorCodes.topic_missing, rejectionReasons.shopifyTopicMissing, 400, webhookMessages.shopifyTopicMissing);
  return { kind: 'go_on' };
}

/**
 * A generic request to a flow that requires a signature (docs/decisions/0012): what the
 * check found, and for an expired signature how old it is, in seconds.
 */
export function decideFlowSignature(outcome: FlowSignatureCheck, ageSeconds: () => number): Of<'refuse' | 'go_on'> {
  switch (outcome) {
    case 'valid':
    case 'not_required':
      return { kind: 'go_on' };
    case 'missing':
      return refuse(apiErrorCodes.signature_required, signatureRejectionReasons.missing, 401, signatureAnswerMessages.missing);
    case 'malformed':
      return refuse(apiErrorCodes.bad_signature, signatureRejectionReasons.malformed, 401, signatureAnswerMessages.malformed);
    case 'expired':
      return refuse(apiErrorCodes.signature_expired, signatureRejectionReasons.expired(ageSeconds()), 401, signatureAnswerMessages.expired);
    case 'mismatch':
      return refuse(apiErrorCodes.bad_signature, signatureRejectionReasons.mismatch, 401, signatureAnswerMessages.mismatch);
    case 'unreadable':
      return refuse(apiErrorCodes.bad_signature, signatureRejectionReasons.unreadable, 401, signatureAnswerMessages.mismatch);
  }
}

/** A body the one parser for outside JSON refused: why, in the parser's words for malformed JSON. */
export function decideUnparsedBody(problem: JsonTextProblem, detail: string): Of<'refuse'> {
  switch (problem) {
    case 'malformed':
      return refuse(apiErrorCodes.malformed_json, rejectionReasons.malformedJson(detail), 400, webhookMessages.malformedJson);
    case 'too_deep':
      return refuse(apiErrorCodes.too_deep, rejectionReasons.tooDeep(defaultJsonLimits.maxDepth), 400, webhookMessages.tooDeep(defaultJsonLimits.maxDepth));
    case 'too_many_members':
      return refuse(apiErrorCodes.too_many_members, rejectionReasons.tooManyMembers(defaultJsonLimits.maxMembers), 400, webhookMessages.tooManyMembers(defaultJsonLimits.maxMembers));
  }
}

/** Every source sends one JSON object per event. */
export function decideParsedBody(payload: unknown): Of<'refuse' | 'go_on'> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return refuse(apiErrorCodes.not_an_object, rejectionReasons.notAnObject, 400, webhookMessages.notAnObject);
  return { kind: 'go_on' };
}

/** The pixel's endpoint accepts only the pixel's own shape: a body of another shape is refused, its first problems named. */
export function decidePixelShape(issues: Array<{ path: PropertyKey[]; message: string }>): Of<'refuse'> {
  const problems = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`)
    .join('; ');
  return refuse(apiErrorCodes.not_pixel_event, rejectionReasons.notPixelEvent(problems), 400, webhookMessages.notPixelEvent);
}
