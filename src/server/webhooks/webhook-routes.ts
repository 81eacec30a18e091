import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Logger } from 'pino';
import { HttpError } from '../platform/http-errors.ts';
import type { FlowRecord } from '../flows/flow-queries.ts';
import { insertEventOnce, type NewEvent } from '../events/event-queries.ts';
import type { Engine } from '../engine/engine.ts';
import type { CredentialsLoader } from '../engine/engine-credentials.ts';
import { verifyShopifySignature } from './webhook-signature.ts';
import {
  claimedSource,
  keptHeadersOf,
  newAcceptedEvent,
  readIntakeDetails,
  readPixelIntakeDetails,
  shopifyTopicOf,
  type IntakeDetails,
} from './webhook-intake.ts';
import { PixelRateLimiter } from './pixel-rate-limiter.ts';
import { clientAddressKey } from '../platform/client-address.ts';
import { MAX_PIXEL_BODY_BYTES, pixelEventSchema, pixelKeyPattern, trustedPixelEvent } from '../../shared/shopify-pixel/pixel-schemas.ts';
import { pixelAddressRoutes } from './pixel-address-routes.ts';
import { defaultJsonLimits, JsonTextError, parseJsonText, storableText } from '../platform/json-text.ts';
import type { EventSource } from '../../shared/events/event-schemas.ts';
import { IntakeBatcher, type StoredEvent } from './intake-batcher.ts';
import { SigningSecretCache } from './signing-secret-cache.ts';
import { pixelFlowCache, webhookFlowCache } from './webhook-flow-cache.ts';
import { flowSignatureCacheFor, signatureHeaderOf, type FlowSignatureCheck } from './flow-signature-cache.ts';
import { signatureAgeSeconds } from './flow-signature.ts';
import { signatureAnswerMessages, signatureRejectionReasons } from '../../shared/flows/flow-signature-messages.ts';
import { rejectionReasons, webhookMessages } from '../../shared/events/event-messages.ts';
import { webhookAcceptedSchema } from '../../shared/events/event-schemas.ts';
import { flowTypeDetails, flowTypes, type FlowType } from '../../shared/flows/flow-types.ts';
import { requestMessages } from '../../shared/messages.ts';

/** SPEC.md's route; a browser GET of it is the handler page (app.ts). */
export const MAX_WEBHOOK_BODY_BYTES = 1_048_576;
/** Enough of a rejected body for the owner to recognise it. */
const MAX_REJECTED_BODY_CHARS = 16_384;

const paramsSchema = z.object({ flowType: z.string().max(100), flowId: z.string().max(200) });
const pixelParamsSchema = z.object({ pixelKey: z.string().max(200) });

export interface WebhookRouteOptions {
  engine: Engine;
  loadCredentials: CredentialsLoader;
  /** Browsing-pixel events accepted per source address and minute. */
  pixelRateLimitPerMinute: number;
}

/** The browsing pixel's own public address (pixelUrlOf in shared/shopify-pixel). */
const PIXEL_ROUTE = '/api/pixel/:pixelKey';
/** Where the pixel sent before it had its own key; the address held the flow's secret URL. */
const RETIRED_PIXEL_ROUTE = '/api/webhooks/:flowType/:flowId/pixel';

/**
 * `POST /api/webhooks/{flowType}/{flowId}`: verify, store with its job in one
 * transaction, acknowledge. Nothing else happens in the request (PRODUCT.md section 4).
 * Registered as an encapsulated plugin with its own content-type parsers that keep the
 * raw bytes (the signature is over them), so the rest of the API keeps JSON parsing.
 */
export async function webhookRoutes(scope: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { pool } = app.database;
  const { engine, loadCredentials } = options;
  const flows = webhookFlowCache(pool, app.clock);
  const pixelFlows = pixelFlowCache(pool, app.clock);
  const batcher = new IntakeBatcher(pool, engine, app.log as unknown as Logger);
  const signingSecrets = new SigningSecretCache(async (userId) => (await loadCredentials(pool, userId))?.shopifySigningSecrets ?? [], app.clock);
  const pixelLimiter = new PixelRateLimiter(options.pixelRateLimitPerMinute, app.clock);
  const flowSignatures = flowSignatureCacheFor(pool, app.credentialCipher, app.clock);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY_BYTES }, (_request, body, done) => {
    done(null, body);
  });

  async function findFlow(find: () => Promise<FlowRecord | null>): Promise<FlowRecord | null> {
    try {
      return await find();
    } catch (error) {
      app.log.error({ err: error }, 'webhook: the database is unavailable');
      throw new HttpError(503, 'unavailable', webhookMessages.unavailable, { retryAfterSeconds: 5 });
    }
  }

  /** Kept so the owner can see why an event did not arrive; never fails the answer. */
  async function recordRejection(request: FastifyRequest, flow: FlowRecord, reason: string, rawBody: string | null): Promise<void> {
    const receivedAt = app.clock.now();
    const source: EventSource = isPixelRequest(request) ? 'pixel' : claimedSource(request.headers);
    // Everything here came from the sender, so it is made storable: a NUL or half a
    // surrogate pair must not cost the owner the record of why the event was refused.
    const event: NewEvent = {
      id: randomUUID(),
      flowId: flow.id,
      userId: flow.userId,
      flowType: flow.flowType,
      source,
      topic: source === 'shopify' ? shopifyTopicOf(request.headers) : null,
      status: 'rejected',
      contentType: contentTypeOf(request),
      rawBody: rawBody === null ? null : storableText(rawBody.slice(0, MAX_REJECTED_BODY_CHARS)),
      headers: keptHeadersOf(request.headers),
      shopifyEventId: null,
      shopifyWebhookId: null,
      externalEventId: null,
      error: storableText(reason),
      checkoutToken: null,
      cartToken: null,
      objectId: null,
      shopperEmail: null,
      occurredAt: null,
      processAfter: null,
      receivedAt,
    };
    try {
      await insertEventOnce(pool, event);
    } catch (error) {
      app.log.warn({ err: error, userId: flow.userId, flowType: flow.flowType }, 'webhook: could not record a rejection');
    }
    request.log.info({ userId: flow.userId, flowType: flow.flowType, reason }, 'webhook rejected');
  }

  /** The flow the URL names, or 404 that says nothing more (a wrong type is recorded for its owner). */
  async function flowOfRequest(request: FastifyRequest, params: { flowType: string; flowId: string }): Promise<FlowRecord> {
    const flow = await findFlow(() => flows.find(params.flowId));
    if (!flow) {
      request.log.info({ reason: 'unknown flow' }, 'webhook rejected');
      throw new HttpError(404, 'not_found', requestMessages.notFound);
    }
    if (flow.flowType !== params.flowType) {
      const sentTo = (flowTypes as readonly string[]).includes(params.flowType) ? flowTypeDetails[params.flowType as FlowType].title : params.flowType.slice(0, 50);
      await recordRejection(request, flow, rejectionReasons.wrongFlowType(sentTo, flowTypeDetails[flow.flowType].title), null);
      throw new HttpError(404, 'not_found', requestMessages.notFound);
    }
    return flow;
  }

  /**
   * The browsing flow a pixel key names, or 404 that says nothing more: a key of another
   * flow type is as unknown as a made-up one, and a key that is not one is not looked up.
   */
  async function pixelFlowOfRequest(request: FastifyRequest, pixelKey: string): Promise<FlowRecord> {
    const flow = pixelKeyPattern.test(pixelKey) ? await findFlow(() => pixelFlows.find(pixelKey)) : null;
    if (!flow || flow.flowType !== 'browser_abandonment') {
      request.log.info({ reason: 'unknown pixel key' }, 'webhook rejected');
      throw new HttpError(404, 'not_found', requestMessages.notFound);
    }
    return flow;
  }

  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const tooLarge = error.statusCode === 413;
    const unsupported = error.statusCode === 415;
    if (!tooLarge && !unsupported) throw error;
    let flow: FlowRecord;
    if (isPixelRequest(request)) {
      const params = pixelParamsSchema.safeParse(request.params);
      if (!params.success) throw error;
      flow = await pixelFlowOfRequest(request, params.data.pixelKey);
    } else {
      const params = paramsSchema.safeParse(request.params);
      if (!params.success) throw error;
      flow = await flowOfRequest(request, params.data);
    }
    if (tooLarge && isPixelRequest(request)) {
      await recordRejection(request, flow, rejectionReasons.pixelBodyTooLarge, null);
      return reply.status(413).send({ error: 'body_too_large', message: webhookMessages.pixelBodyTooLarge });
    }
    if (tooLarge) {
      await recordRejection(request, flow, rejectionReasons.bodyTooLarge, null);
      return reply.status(413).send({ error: 'body_too_large', message: webhookMessages.bodyTooLarge });
    }
    await recordRejection(request, flow, rejectionReasons.unsupportedMediaType(contentTypeOf(request)?.slice(0, 100) ?? ''), null);
    return reply.status(415).send({ error: 'unsupported_media_type', message: webhookMessages.unsupportedMediaType });
  });

  app.post(
    '/api/webhooks/:flowType/:flowId',
    { schema: { params: paramsSchema, response: { 202: webhookAcceptedSchema } } },
    async (request, reply) => {
      const flow = await flowOfRequest(request, request.params);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const text = body.toString('utf8');
      if (body.length === 0) {
        await recordRejection(request, flow, rejectionReasons.emptyBody, null);
        throw new HttpError(400, 'empty_body', webhookMessages.emptyBody);
      }

      // One decision, before anything reads the body: a request claiming to be Shopify is
      // held to Shopify's signature and never to the generic one (webhook-intake.ts).
      const claim = claimedSource(request.headers);
      if (claim === 'shopify') await checkShopifySignature(request, flow, body, text);
      else await checkFlowSignature(request, flow, body, text);

      const payload = await parsedObject(request, flow, text);
      const details = readIntakeDetails(claim, request.headers, payload, flow, app.clock.now());
      const stored = await storeAccepted(request, flow, details, text);
      return reply.status(202).send({ eventId: stored.id, status: stored.status, duplicate: !stored.inserted });
    },
  );

  /**
   * A request that claims to be Shopify (docs/decisions/0013-who-may-send-what.md): it
   * must carry X-Shopify-Hmac-Sha256 over the raw bytes by one of the owner's Shopify
   * secrets (the current one, or the previous one during a rotation), and name its topic.
   * A refusal is recorded with its reason, so the owner sees what was turned away.
   */
  async function checkShopifySignature(request: FastifyRequest, flow: FlowRecord, body: Buffer, text: string): Promise<void> {
    const header = request.headers['x-shopify-hmac-sha256'];
    const signature = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
    // Repeated empty headers arrive joined as ", ": that is no signature either.
    if (signature.replace(/[\s,]/g, '') === '') {
      await recordRejection(request, flow, rejectionReasons.shopifyUnsigned, text);
      throw new HttpError(401, 'signature_required', webhookMessages.shopifyUnsigned);
    }
    let check: { valid: boolean; secrets: string[] };
    try {
      check = await signingSecrets.verify(flow.userId, (secrets) => verifyShopifySignature(body, signature, secrets));
    } catch (error) {
      app.log.error({ err: error }, 'webhook: could not read the signing secrets');
      throw new HttpError(503, 'unavailable', webhookMessages.unavailable, { retryAfterSeconds: 5 });
    }
    if (check.secrets.length === 0) {
      await recordRejection(request, flow, rejectionReasons.noSigningSecret, text);
      throw new HttpError(401, 'bad_signature', webhookMessages.badSignature);
    }
    if (!check.valid) {
      await recordRejection(request, flow, rejectionReasons.signatureMismatch, text);
      throw new HttpError(401, 'bad_signature', webhookMessages.badSignature);
    }
    if (!shopifyTopicOf(request.headers)) {
      await recordRejection(request, flow, rejectionReasons.shopifyTopicMissing, text);
      throw new HttpError(400, 'topic_missing', webhookMessages.shopifyTopicMissing);
    }
  }

  /**
   * The body as a JSON object, through the one parser for outside JSON (exact 64-bit ids,
   * bounded depth and size, storable strings); anything else is a recorded 400.
   */
  async function parsedObject(request: FastifyRequest, flow: FlowRecord, text: string): Promise<Record<string, unknown>> {
    let payload: unknown;
    try {
      payload = parseJsonText(text);
    } catch (error) {
      const problem = error instanceof JsonTextError ? error.problem : 'malformed';
      const refusals = {
        malformed: { reason: rejectionReasons.malformedJson((error as Error).message), code: 'malformed_json', message: webhookMessages.malformedJson },
        too_deep: { reason: rejectionReasons.tooDeep(defaultJsonLimits.maxDepth), code: 'too_deep', message: webhookMessages.tooDeep(defaultJsonLimits.maxDepth) },
        too_many_members: {
          reason: rejectionReasons.tooManyMembers(defaultJsonLimits.maxMembers),
          code: 'too_many_members',
          message: webhookMessages.tooManyMembers(defaultJsonLimits.maxMembers),
        },
      } as const;
      const refusal = refusals[problem];
      await recordRejection(request, flow, refusal.reason, text || null);
      throw new HttpError(400, refusal.code, refusal.message);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      await recordRejection(request, flow, rejectionReasons.notAnObject, text);
      throw new HttpError(400, 'not_an_object', webhookMessages.notAnObject);
    }
    return payload as Record<string, unknown>;
  }

  /**
   * A generic request to a flow that requires a signature (docs/decisions/0012): checked
   * over the raw bytes before parsing; a refusal is 401 and recorded with its reason.
   * Requests claiming to be Shopify are checked above instead, and the pixel has its own route.
   */
  async function checkFlowSignature(request: FastifyRequest, flow: FlowRecord, body: Buffer, text: string): Promise<void> {
    const header = signatureHeaderOf(request.headers);
    let outcome: FlowSignatureCheck;
    try {
      outcome = await flowSignatures.check(flow.id, body, header);
    } catch (error) {
      app.log.error({ err: error }, 'webhook: could not read the flow signing secrets');
      throw new HttpError(503, 'unavailable', webhookMessages.unavailable, { retryAfterSeconds: 5 });
    }
    if (outcome === 'valid' || outcome === 'not_required') return;
    const nowSeconds = Math.floor(app.clock.now().getTime() / 1000);
    const refusals = {
      missing: { reason: signatureRejectionReasons.missing, code: 'signature_required', message: signatureAnswerMessages.missing },
      malformed: { reason: signatureRejectionReasons.malformed, code: 'bad_signature', message: signatureAnswerMessages.malformed },
      expired: { reason: signatureRejectionReasons.expired(signatureAgeSeconds(header ?? '', nowSeconds)), code: 'signature_expired', message: signatureAnswerMessages.expired },
      mismatch: { reason: signatureRejectionReasons.mismatch, code: 'bad_signature', message: signatureAnswerMessages.mismatch },
      unreadable: { reason: signatureRejectionReasons.unreadable, code: 'bad_signature', message: signatureAnswerMessages.mismatch },
    } as const;
    const refusal = refusals[outcome];
    await recordRejection(request, flow, refusal.reason, text);
    throw new HttpError(401, refusal.code, refusal.message);
  }

  /** Stores an accepted event with its job; never 2xx for an event that was not kept. */
  async function storeAccepted(request: FastifyRequest, flow: FlowRecord, details: IntakeDetails, rawBody: string): Promise<StoredEvent> {
    const event = newAcceptedEvent(
      flow,
      details,
      { rawBody, contentType: contentTypeOf(request), headers: keptHeadersOf(request.headers) },
      app.clock.now(),
    );
    try {
      return await batcher.store(event, event.status !== 'skipped');
    } catch (error) {
      app.log.error({ err: error, userId: flow.userId, flowType: flow.flowType }, 'webhook: the event could not be stored');
      throw new HttpError(503, 'unavailable', webhookMessages.unavailable, { retryAfterSeconds: 5 });
    }
  }

  /**
   * The browsing pixel: public, since its address sits in the storefront's code, so each
   * source address is rate-limited before the body is even read, only the pixel's own
   * shape (pixelEventSchema) is accepted, and only the trusted subset of it is stored
   * (trustedPixelEvent), so nothing a stranger writes reaches a prompt. Answers carry
   * Access-Control-Allow-Origin so the sandboxed pixel may read them.
   */
  app.post(
    PIXEL_ROUTE,
    {
      bodyLimit: MAX_PIXEL_BODY_BYTES,
      schema: { params: pixelParamsSchema, response: { 202: webhookAcceptedSchema } },
      onRequest: async (request, reply) => {
        reply.header('access-control-allow-origin', '*');
        const retryAfterSeconds = pixelLimiter.take(clientAddressKey(request.ip));
        if (retryAfterSeconds !== null) {
          request.log.info({ reason: 'pixel rate limit' }, 'webhook rejected');
          throw new HttpError(429, 'rate_limited', webhookMessages.pixelRateLimited, { retryAfterSeconds });
        }
      },
    },
    async (request, reply) => {
      const flow = await pixelFlowOfRequest(request, request.params.pixelKey);
      const text = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
      const payload = await parsedObject(request, flow, text);
      const pixel = pixelEventSchema.safeParse(payload);
      if (!pixel.success) {
        const problems = pixel.error.issues
          .slice(0, 3)
          .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
          .join('; ');
        await recordRejection(request, flow, rejectionReasons.notPixelEvent(problems), text);
        throw new HttpError(400, 'not_pixel_event', webhookMessages.notPixelEvent);
      }
      const receivedAt = app.clock.now();
      const details = readPixelIntakeDetails(pixel.data, flow, receivedAt);
      const trusted = trustedPixelEvent(pixel.data, details.occurredAt ?? receivedAt);
      const stored = await storeAccepted(request, flow, details, JSON.stringify(trusted));
      return reply.status(202).send({ eventId: stored.id, status: stored.status, duplicate: !stored.inserted });
    },
  );

  /**
   * The pixel's address before it had its own key. Snippets pasted then still send here;
   * 410 tells whoever looks what to do. The address held the flow's webhook URL, so it is
   * not looked up or recorded: what it names is for the owner to rotate, not for us to
   * keep serving (docs/decisions/0013-who-may-send-what.md).
   */
  const retiredPixelAddress = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('access-control-allow-origin', '*');
    throw new HttpError(410, 'pixel_address_retired', webhookMessages.pixelAddressRetired);
  };
  // Answered on arrival, before a body is read, whatever the body is.
  app.post(RETIRED_PIXEL_ROUTE, { onRequest: retiredPixelAddress }, retiredPixelAddress);

  // The owner's view of the pixel's address lives with the pixel, behind sign-in.
  app.signedIn(pixelAddressRoutes, '/api/flows');
}

function isPixelRequest(request: FastifyRequest): boolean {
  return request.routeOptions.url === PIXEL_ROUTE;
}

function contentTypeOf(request: FastifyRequest): string | null {
  const contentType = request.headers['content-type'];
  return contentType === undefined ? null : storableText(contentType.slice(0, 200));
}
