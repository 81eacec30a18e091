import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type pg from 'pg';
import type { Logger } from 'pino';
import { inTransaction, type Queryable } from '../database/database.ts';
import { isDatabaseUnavailable, isForeignKeyViolation } from '../database/database-errors.ts';
import { DATABASE_RETRY_AFTER_SECONDS, refused, type Refused } from '../platform/http-errors.ts';
import type { Clock } from '../platform/clock.ts';
import type { FlowRecord } from '../flows/flow-queries.ts';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import { findEventForUser, insertEventOnce, newEvent, startReplay, type EventRecord } from '../events/event-queries.ts';
import { JsonTextError, parseJsonText, parseJsonTextBothWays, storableText, type ParsedJsonText } from '../platform/json-text.ts';
import { IntakeBatcher, type BatchLimits, type JobSender, type StoredEvent } from './intake-batcher.ts';
import { claimedSource, keptHeadersOf, newAcceptedEvent, readIntakeDetails, readPixelIntakeDetails, shopifyTopicOf, trimShopperDetails, type IntakeDetails, type StoredBody } from './intake-details.ts';
import { verifyShopifySignature } from './shopify-signature.ts';
import {
  decideFlowSignature,
  decideParsedBody,
  decidePixelShape,
  decideShopifySignature,
  decideShopifySignaturePresent,
  decideUnparsedBody,
  decideUnreadBody,
  decideWebhookBody,
  type Refusal,
} from './intake-decisions.ts';
import { SigningSecretCache } from './signing-secret-cache.ts';
import { signatureHeaderOf, type FlowSignatureCache } from './flow-signature-cache.ts';
import type { FlowSignatureCheck } from './flow-signature.ts';
import { signatureAgeSeconds } from './flow-signature.ts';
import { pixelFlowCache, webhookFlowCache } from './flow-key-cache.ts';
import { pixelEventSchema, pixelKeyPattern, trustedPixelEvent } from '../../shared/shopify-pixel/pixel-schemas.ts';
import { eventLogMessages, rejectionReasons, webhookMessages } from '../../shared/events/event-messages.ts';
import { webhookConsoleMessages } from '../../shared/webhooks/webhook-messages.ts';
import { flowTypeDetails, flowTypes, type FlowType } from '../../shared/flows/flow-types.ts';
import { requestMessages } from '../../shared/messages.ts';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/**
 * Receiving, for every source (docs/architecture.md): the Shopify or generic webhook, the
 * browsing pixel, the console's test send and the owner's replay each come in through
 * `accept`, which verifies what the source must prove, keeps duplicates once, and stores
 * the event with its job in one transaction before it answers. A refusal is recorded on
 * the flow with its reason (so the owner sees what was turned away) and returned as the
 * `Refused` result the route answers the sender with. Routes only find the flow an
 * address names and translate.
 */

/** A request to a public intake address, as the route hands it over. */
export interface IntakeRequest {
  headers: IncomingHttpHeaders;
  contentType: string | null;
  body: Buffer;
}

export type Submission =
  /** A POST to a flow's webhook URL: Shopify when it says so (and proves it), else a generic sender. */
  | { kind: 'webhook'; flow: FlowRecord; request: IntakeRequest }
  /** The browsing pixel's public endpoint: only its own event shape, only its trusted subset stored. */
  | { kind: 'pixel'; flow: FlowRecord; request: IntakeRequest }
  /**
   * The signed-in console's test send: the only way to make a test event, so the mark
   * comes from the authenticated route, never from anything a stranger can send.
   */
  | { kind: 'test'; flow: FlowRecord; payloadText: string; dryRun: boolean }
  /** The owner runs a failed or delivered event again, as a new attempt. */
  | { kind: 'replay'; userId: string; eventId: string };

export interface Accepted {
  eventId: string;
  status: EventStatus;
  /** True when the event repeats one already kept (its id is the kept one's). */
  duplicate: boolean;
}

export interface Replayed extends Accepted {
  event: EventRecord;
}

/** Told of every acceptance and refusal (metrics); `reason` is the refusal's short code. */
export interface IntakeObserver {
  accepted(source: EventSource): void;
  rejected(source: EventSource | 'unknown', reason: string): void;
}

export interface JobQueue extends JobSender {
  enqueue(db: Queryable, job: { eventId: string; attempt: number; arm?: boolean }): Promise<void>;
}

export interface IntakeDependencies {
  pool: pg.Pool;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  /** The owner's Shopify signing secrets (current and rotating), decrypted. */
  loadShopifySecrets(userId: string): Promise<string[]>;
  credentialCipher: CredentialCipher;
  /** The generic senders' signing secrets, shared with the routes that change them. */
  flowSignatures: FlowSignatureCache;
  observer?: IntakeObserver;
  /** How many of its batches may be at the database at once (intake-batcher.ts); one unless given. */
  batchLimits?: BatchLimits;
}

/** Enough of a refused body for the owner to recognise it. */
const MAX_REJECTED_BODY_CHARS = 16_384;

/** Refusals of a body seen before it is read (its size, its type), decided by the HTTP layer. */
export type BodyRefusal = 'too_large' | 'unsupported_media_type';

/** What a refused request was sent as, and to which flow. */
interface Sent {
  flow: FlowRecord;
  kind: 'webhook' | 'pixel';
  request: IntakeRequest;
}

/**
 * How a refusal leaves the depths of one submission's checks: thrown inside the intake
 * only, and returned from its public methods as the `Refused` result.
 */
class SubmissionRefused extends Error {
  readonly refusal: Refused;
  constructor(refusal: Refused) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

async function refusalAsResult<T>(work: () => Promise<T>): Promise<T | Refused> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SubmissionRefused) return error.refusal;
    throw error;
  }
}

export class Intake {
  private readonly deps: IntakeDependencies;
  private readonly batcher: IntakeBatcher;
  private readonly webhookFlows;
  private readonly pixelFlows;
  private readonly signingSecrets: SigningSecretCache;
  private readonly flowSignatures;

  constructor(deps: IntakeDependencies) {
    this.deps = deps;
    this.batcher = new IntakeBatcher(deps.pool, deps.jobs, deps.logger, deps.batchLimits);
    this.webhookFlows = webhookFlowCache(deps.pool, deps.clock);
    this.pixelFlows = pixelFlowCache(deps.pool, deps.clock);
    this.signingSecrets = new SigningSecretCache((userId) => deps.loadShopifySecrets(userId), deps.clock);
    this.flowSignatures = deps.flowSignatures;
  }

  accept(submission: Extract<Submission, { kind: 'replay' }>): Promise<Replayed | Refused>;
  accept(submission: Exclude<Submission, { kind: 'replay' }>): Promise<Accepted | Refused>;
  async accept(submission: Submission): Promise<Accepted | Replayed | Refused> {
    return refusalAsResult(() => {
      switch (submission.kind) {
        case 'webhook':
          return this.acceptWebhook(submission.flow, submission.request);
        case 'pixel':
          return this.acceptPixel(submission.flow, submission.request);
        case 'test':
          return this.acceptTestSend(submission.flow, submission.payloadText, submission.dryRun);
        case 'replay':
          return this.acceptReplay(submission.userId, submission.eventId);
      }
    });
  }

  /** The flow a webhook URL names, or 404 that says nothing more (a wrong type is recorded for its owner). */
  async flowOfWebhookAddress(address: { flowType: string; flowKey: string }, request: IntakeRequest): Promise<FlowRecord | Refused> {
    return refusalAsResult(() => this.findWebhookFlow(address, request));
  }

  private async findWebhookFlow(address: { flowType: string; flowKey: string }, request: IntakeRequest): Promise<FlowRecord> {
    const flow = await this.readingFlows(() => this.webhookFlows.find(address.flowKey));
    if (!flow) {
      this.deps.observer?.rejected('unknown', 'unknown_flow');
      this.deps.logger.info({ reason: 'unknown_flow' }, 'webhook rejected');
      throw new SubmissionRefused(refused(apiErrorCodes.not_found, requestMessages.notFound));
    }
    if (flow.flowType !== address.flowType) {
      const known = (flowTypes as readonly string[]).includes(address.flowType);
      const sentTo = known ? flowTypeDetails[address.flowType as FlowType].title : address.flowType.slice(0, 50);
      await this.refuse({ flow, kind: 'webhook', request }, { code: 'wrong_flow_type', reason: rejectionReasons.wrongFlowType(sentTo, flowTypeDetails[flow.flowType].title) }, null);
      throw new SubmissionRefused(refused(apiErrorCodes.not_found, requestMessages.notFound));
    }
    return flow;
  }

  /**
   * The browsing flow a pixel key names, or 404 that says nothing more: a key of another
   * flow type is as unknown as a made-up one, and a key that is not one is not looked up.
   */
  async flowOfPixelAddress(pixelKey: string): Promise<FlowRecord | Refused> {
    return refusalAsResult(() => this.findPixelFlow(pixelKey));
  }

  private async findPixelFlow(pixelKey: string): Promise<FlowRecord> {
    const flow = pixelKeyPattern.test(pixelKey) ? await this.readingFlows(() => this.pixelFlows.find(pixelKey)) : null;
    if (!flow || flow.flowType !== 'browser_abandonment') {
      this.deps.observer?.rejected('pixel', 'unknown_flow');
      this.deps.logger.info({ reason: 'unknown_pixel_key' }, 'webhook rejected');
      throw new SubmissionRefused(refused(apiErrorCodes.not_found, requestMessages.notFound));
    }
    return flow;
  }

  /** A body refused before it was read: recorded on the flow, answered 413 or 415. */
  async refuseUnreadBody(flow: FlowRecord, kind: 'webhook' | 'pixel', request: IntakeRequest, refusal: BodyRefusal): Promise<Refused> {
    return refusalAsResult(() => this.refuseWith({ flow, kind, request }, decideUnreadBody(refusal, kind, request.contentType), null));
  }

  private async acceptWebhook(flow: FlowRecord, request: IntakeRequest): Promise<Accepted> {
    const text = request.body.toString('utf8');
    const body = decideWebhookBody(request.body.length);
    if (body.kind === 'refuse') await this.refuseWith({ flow, kind: 'webhook', request }, body, null);
    // One decision, before anything reads the body: a request claiming to be Shopify is
    // held to Shopify's signature and never to the generic one (intake-details.ts).
    const claim = claimedSource(request.headers);
    if (claim === 'shopify') await this.checkShopifySignature(flow, request, text);
    else await this.checkFlowSignature(flow, request, text);
    const { payload, parsed } = await this.parsedObject(flow, 'webhook', request, text);
    const details = readIntakeDetails(claim, { headers: request.headers, payload }, flow, this.deps.clock.now());
    return this.store(flow, details, { rawBody: text, contentType: request.contentType, headers: keptHeadersOf(request.headers), parsed: parsed.exact });
  }

  /**
   * The pixel's endpoint is public and its address sits in the storefront's code: only the
   * pixel's own shape (pixelEventSchema) is accepted, and only the trusted subset of it is
   * stored (trustedPixelEvent), so nothing a stranger writes reaches a prompt.
   */
  private async acceptPixel(flow: FlowRecord, request: IntakeRequest): Promise<Accepted> {
    const text = request.body.toString('utf8');
    const { payload } = await this.parsedObject(flow, 'pixel', request, text);
    const pixel = pixelEventSchema.safeParse(payload);
    if (!pixel.success) return this.refuseWith({ flow, kind: 'pixel', request }, decidePixelShape(pixel.error.issues), text);
    const receivedAt = this.deps.clock.now();
    const details = readPixelIntakeDetails(pixel.data, flow, receivedAt);
    const trusted = trustedPixelEvent(pixel.data, details.occurredAt ?? receivedAt);
    return this.store(flow, details, { rawBody: JSON.stringify(trusted), contentType: request.contentType, headers: keptHeadersOf(request.headers) });
  }

  /** Stored exactly as a POST to the flow's URL would be, marked as a test (and maybe a dry run). */
  private async acceptTestSend(flow: FlowRecord, payloadText: string, dryRun: boolean): Promise<Accepted> {
    let payload: unknown;
    try {
      payload = parseJsonText(payloadText);
    } catch (error) {
      if (error instanceof JsonTextError && error.problem !== 'malformed') {
        const message = error.problem === 'too_deep' ? requestMessages.tooDeeplyNested : requestMessages.tooManyMembers;
        throw new SubmissionRefused(refused(error.problem, message, { status: 400, fieldErrors: { payload: message } }));
      }
      payload = null;
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new SubmissionRefused(refused(apiErrorCodes.invalid_json, webhookConsoleMessages.invalidJson, { fieldErrors: { payload: webhookConsoleMessages.invalidJson } }));
    }
    const details = readIntakeDetails('test', { headers: {}, payload: payload as Record<string, unknown> }, flow, this.deps.clock.now());
    return this.store(flow, details, { rawBody: payloadText, contentType: 'application/json', headers: {} }, dryRun);
  }

  /** A new attempt and its job in one transaction; 404 for someone else's event, 409 when it is not finished. */
  private async acceptReplay(userId: string, eventId: string): Promise<Replayed> {
    const replayed = await inTransaction(this.deps.pool, async (client) => {
      const event = await startReplay(client, userId, eventId);
      if (event) await this.deps.jobs.enqueue(client, { eventId: event.id, attempt: event.attempt });
      return event;
    });
    if (!replayed) {
      const existing = await findEventForUser(this.deps.pool, userId, eventId);
      if (!existing) throw new SubmissionRefused(refused(apiErrorCodes.not_found, eventLogMessages.eventNotFound));
      throw new SubmissionRefused(refused(apiErrorCodes.not_replayable, eventLogMessages.replayNotAllowed));
    }
    this.deps.logger.info({ eventId: replayed.id, attempt: replayed.attempt }, 'event replayed');
    return { eventId: replayed.id, status: replayed.status, duplicate: false, event: replayed };
  }

  /** Stores an accepted event with its job; never 2xx for an event that was not kept. */
  private async store(flow: FlowRecord, details: IntakeDetails, body: StoredBody, dryRun = false): Promise<Accepted> {
    const event = { ...newAcceptedEvent(flow, details, body, this.deps.clock.now()), dryRun };
    let stored: StoredEvent;
    try {
      stored = await this.batcher.store(event, event.status !== 'skipped');
    } catch (error) {
      // The flow (or its owner's account) was deleted after the request found it in the
      // intake's cache: the address no longer exists, and a retry would find that too.
      if (isForeignKeyViolation(error)) throw new SubmissionRefused(refused(apiErrorCodes.not_found, requestMessages.notFound));
      this.deps.logger.error({ err: error, userId: flow.userId, flowType: flow.flowType }, 'intake: the event could not be stored');
      throw new SubmissionRefused(refused(apiErrorCodes.database_unavailable, webhookMessages.unavailable, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }));
    }
    this.deps.observer?.accepted(details.source);
    this.deps.logger.info({ eventId: stored.id, flowType: flow.flowType, source: details.source, status: stored.status, duplicate: !stored.inserted }, 'event accepted');
    return { eventId: stored.id, status: stored.status, duplicate: !stored.inserted };
  }

  /**
   * A request that claims to be Shopify (docs/decisions/0013-who-may-send-what.md): it
   * must carry X-Shopify-Hmac-Sha256 over the raw bytes by one of the owner's Shopify
   * secrets (the current one, or the previous one during a rotation), and name its topic.
   */
  private async checkShopifySignature(flow: FlowRecord, request: IntakeRequest, text: string): Promise<void> {
    const header = request.headers['x-shopify-hmac-sha256'];
    const signature = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
    const signed = decideShopifySignaturePresent(signature);
    if (signed.kind === 'refuse') await this.refuseWith({ flow, kind: 'webhook', request }, signed, text);
    let check: { valid: boolean; secrets: string[] };
    try {
      check = await this.signingSecrets.verify(flow.userId, (secrets) => verifyShopifySignature(request.body, signature, secrets));
    } catch (error) {
      this.deps.logger.error({ err: error }, 'intake: could not read the signing secrets');
      throw new SubmissionRefused(refused(apiErrorCodes.database_unavailable, webhookMessages.unavailable, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }));
    }
    const verified = decideShopifySignature({ secretCount: check.secrets.length, valid: check.valid, topicNamed: Boolean(shopifyTopicOf(request.headers)) });
    if (verified.kind === 'refuse') await this.refuseWith({ flow, kind: 'webhook', request }, verified, text);
  }

  /**
   * A generic request to a flow that requires a signature (docs/decisions/0012): checked
   * over the raw bytes before parsing; a refusal is 401 and recorded with its reason.
   */
  private async checkFlowSignature(flow: FlowRecord, request: IntakeRequest, text: string): Promise<void> {
    const header = signatureHeaderOf(request.headers);
    let outcome: FlowSignatureCheck;
    try {
      outcome = await this.flowSignatures.check(flow.id, request.body, header);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'intake: could not read the flow signing secrets');
      throw new SubmissionRefused(refused(apiErrorCodes.database_unavailable, webhookMessages.unavailable, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }));
    }
    const nowSeconds = Math.floor(this.deps.clock.now().getTime() / 1000);
    const decision = decideFlowSignature(outcome, () => signatureAgeSeconds(header ?? '', nowSeconds));
    if (decision.kind === 'refuse') await this.refuseWith({ flow, kind: 'webhook', request }, decision, text);
  }

  /**
   * The body as a JSON object, through the one parser for outside JSON (exact 64-bit ids,
   * bounded depth and size, storable strings); anything else is a recorded 400.
   */
  private async parsedObject(
    flow: FlowRecord,
    kind: 'webhook' | 'pixel',
    request: IntakeRequest,
    text: string,
  ): Promise<{ payload: Record<string, unknown>; parsed: ParsedJsonText }> {
    let parsed: ParsedJsonText;
    try {
      parsed = parseJsonTextBothWays(text);
    } catch (error) {
      const problem = error instanceof JsonTextError ? error.problem : 'malformed';
      return this.refuseWith({ flow, kind, request }, decideUnparsedBody(problem, (error as Error).message), text || null);
    }
    const payload = parsed.value;
    const shape = decideParsedBody(payload);
    if (shape.kind === 'refuse') await this.refuseWith({ flow, kind, request }, shape, text);
    return { payload: payload as Record<string, unknown>, parsed };
  }

  /** Records the refusal on the flow and answers the sender with it. */
  private async refuseWith(sent: Sent, decision: { refusal: Refusal }, rawBody: string | null): Promise<never> {
    const { refusal } = decision;
    await this.refuse(sent, { code: refusal.code, reason: refusal.reason }, rawBody);
    throw new SubmissionRefused(refused(refusal.answerCode, refusal.message, { status: refusal.httpStatus }));
  }

  /**
   * Kept so the owner can see why an event did not arrive; never fails the answer.
   * Everything here came from the sender, so it is made storable: a NUL or half a
   * surrogate pair must not cost the owner the record of why the event was refused.
   */
  private async refuse(sent: Sent, refusal: { code: string; reason: string }, rawBody: string | null): Promise<void> {
    const { flow, kind, request } = sent;
    const { code, reason } = refusal;
    const { headers } = request;
    const source: EventSource = kind === 'pixel' ? 'pixel' : claimedSource(headers);
    this.deps.observer?.rejected(source, code);
    const event = newEvent({
      id: randomUUID(),
      flowId: flow.id,
      userId: flow.userId,
      flowType: flow.flowType,
      source,
      topic: source === 'shopify' ? shopifyTopicOf(headers) : null,
      status: 'rejected',
      contentType: request.contentType,
      rawBody: rawBody === null ? null : storableText(trimShopperDetails(rawBody).slice(0, MAX_REJECTED_BODY_CHARS)),
      headers: keptHeadersOf(headers),
      error: storableText(reason),
      receivedAt: this.deps.clock.now(),
    });
    try {
      await insertEventOnce(this.deps.pool, event);
    } catch (error) {
      this.deps.logger.warn({ err: error, userId: flow.userId, flowType: flow.flowType }, 'intake: could not record a rejection');
    }
    this.deps.logger.info({ eventId: event.id, userId: flow.userId, flowType: flow.flowType, reason: code }, 'webhook rejected');
  }

  private async readingFlows(find: () => Promise<FlowRecord | null>): Promise<FlowRecord | null> {
    try {
      return await find();
    } catch (error) {
      // Whatever failed, the sender should come back: only the database is read here.
      if (!isDatabaseUnavailable(error)) this.deps.logger.error({ err: error }, 'intake: could not read the flow');
      else this.deps.logger.warn('intake: the database is unavailable');
      throw new SubmissionRefused(refused(apiErrorCodes.database_unavailable, webhookMessages.unavailable, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }));
    }
  }
}
