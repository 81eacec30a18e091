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
import { keptHeadersOf, newAcceptedEvent, readIntakeDetails, readPixelIntakeDetails, type IntakeDetails } from './webhook-intake.ts';
import { PixelRateLimiter, pixelSourceOf } from './pixel-rate-limiter.ts';
import { MAX_PIXEL_BODY_BYTES, pixelEventSchema } from '../../shared/shopify-pixel/pixel-schemas.ts';
import type { EventSource } from '../../shared/events/event-schemas.ts';
import { IntakeBatcher, type StoredEvent } from './intake-batcher.ts';
import { SigningSecretCache } from './signing-secret-cache.ts';
import { WebhookFlowCache } from './webhook-flow-cache.ts';
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

export interface WebhookRouteOptions {
  engine: Engine;
  loadCredentials: CredentialsLoader;
  /** Browsing-pixel events accepted per source address and minute. */
  pixelRateLimitPerMinute: number;
}

/** The browsing pixel's address: the flow's webhook URL with /pixel (shared/shopify-pixel). */
const PIXEL_ROUTE = '/api/webhooks/:flowType/:flowId/pixel';

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
  const flows = new WebhookFlowCache(pool, app.clock);
  const batcher = new IntakeBatcher(pool, engine, app.log as unknown as Logger);
  const signingSecrets = new SigningSecretCache(async (userId) => (await loadCredentials(pool, userId))?.shopifySigningSecrets ?? [], app.clock);
  const pixelLimiter = new PixelRateLimiter(options.pixelRateLimitPerMinute, app.clock);
  const flowSignatures = flowSignatureCacheFor(pool, app.credentialCipher, app.clock);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY_BYTES }, (_request, body, done) => {
    done(null, body);
  });

  async function findFlow(flowId: string): Promise<FlowRecord | null> {
    try {
      return await flows.find(flowId);
    } catch (error) {
      app.log.error({ err: error }, 'webhook: the database is unavailable');
      throw new HttpError(503, 'unavailable', webhookMessages.unavailable, { retryAfterSeconds: 5 });
    }
  }

  /** Kept so the owner can see why an event did not arrive; never fails the answer. */
  async function recordRejection(request: FastifyRequest, flow: FlowRecord, reason: string, rawBody: string | null): Promise<void> {
    const receivedAt = app.clock.now();
    const source: EventSource = isPixelRequest(request) ? 'pixel' : request.headers['x-shopify-topic'] ? 'shopify' : 'generic';
    const event: NewEvent = {
      id: randomUUID(),
      flowId: flow.id,
      userId: flow.userId,
      flowType: flow.flowType,
      source,
      topic: typeof request.headers['x-shopify-topic'] === 'string' ? request.headers['x-shopify-topic'].toLowerCase().slice(0, 200) : null,
      status: 'rejected',
      contentType: request.headers['content-type']?.slice(0, 200) ?? null,
      rawBody: rawBody === null ? null : rawBody.slice(0, MAX_REJECTED_BODY_CHARS),
      headers: keptHeadersOf(request.headers),
      shopifyEventId: null,
      shopifyWebhookId: null,
      externalEventId: null,
      error: reason,
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
      app.log.warn({ err: error, flowId: flow.id }, 'webhook: could not record a rejection');
    }
    request.log.info({ flowId: flow.id, reason }, 'webhook rejected');
  }

  /** The flow the URL names, or 404 that says nothing more (a wrong type is recorded for its owner). */
  async function flowOfRequest(request: FastifyRequest, params: { flowType: string; flowId: string }): Promise<FlowRecord> {
    const flow = await findFlow(params.flowId);
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

  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const tooLarge = error.statusCode === 413;
    const unsupported = error.statusCode === 415;
    if (!tooLarge && !unsupported) throw error;
    const params = paramsSchema.safeParse(request.params);
    if (!params.success) throw error;
    const flow = await flowOfRequest(request, params.data);
    if (tooLarge && isPixelRequest(request)) {
      await recordRejection(request, flow, rejectionReasons.pixelBodyTooLarge, null);
      return reply.status(413).send({ error: 'body_too_large', message: webhookMessages.pixelBodyTooLarge });
    }
    if (tooLarge) {
      await recordRejection(request, flow, rejectionReasons.bodyTooLarge, null);
      return reply.status(413).send({ error: 'body_too_large', message: webhookMessages.bodyTooLarge });
    }
    await recordRejection(request, flow, rejectionReasons.unsupportedMediaType(request.headers['content-type']?.slice(0, 100) ?? ''), null);
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

      const signature = request.headers['x-shopify-hmac-sha256'];
      if (signature !== undefined) {
        let check: { valid: boolean; secrets: string[] };
        try {
          check = await signingSecrets.verify(flow.userId, (secrets) => verifyShopifySignature(body, String(signature), secrets));
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
      } else {
        await checkFlowSignature(request, flow, body, text);
      }

      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch (error) {
        await recordRejection(request, flow, rejectionReasons.malformedJson((error as Error).message), text);
        throw new HttpError(400, 'malformed_json', webhookMessages.malformedJson);
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        await recordRejection(request, flow, rejectionReasons.notAnObject, text);
        throw new HttpError(400, 'not_an_object', webhookMessages.notAnObject);
      }

      const details = readIntakeDetails(request.headers, payload as Record<string, unknown>, flow);
      const stored = await storeAccepted(request, flow, details, text);
      return reply.status(202).send({ eventId: stored.id, status: stored.status, duplicate: !stored.inserted });
    },
  );

  /**
   * A generic request to a flow that requires a signature (docs/decisions/0012): checked
   * over the raw bytes before parsing; a refusal is 401 and recorded with its reason.
   * Shopify-signed requests are checked above instead, and the pixel has its own route.
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
      { rawBody, contentType: request.headers['content-type']?.slice(0, 200) ?? null, headers: keptHeadersOf(request.headers) },
      app.clock.now(),
    );
    try {
      return await batcher.store(event, event.status !== 'skipped');
    } catch (error) {
      app.log.error({ err: error, flowId: flow.id }, 'webhook: the event could not be stored');
      throw new HttpError(503, 'unavailable', webhookMessages.unavailable, { retryAfterSeconds: 5 });
    }
  }

  /**
   * The browsing pixel (issue 7): public, so each source address is rate-limited before
   * anything else happens, and only the pixel's own shape (pixelEventSchema) is accepted.
   * Answers carry Access-Control-Allow-Origin so the sandboxed pixel may read them.
   */
  app.post(PIXEL_ROUTE, { bodyLimit: MAX_PIXEL_BODY_BYTES, schema: { params: paramsSchema, response: { 202: webhookAcceptedSchema } } }, async (request, reply) => {
    reply.header('access-control-allow-origin', '*');
    const retryAfterSeconds = pixelLimiter.take(pixelSourceOf(request.socket.remoteAddress ?? request.ip, request.headers['x-forwarded-for']));
    if (retryAfterSeconds !== null) {
      request.log.info({ reason: 'pixel rate limit' }, 'webhook rejected');
      throw new HttpError(429, 'rate_limited', webhookMessages.pixelRateLimited, { retryAfterSeconds });
    }
    if (request.params.flowType !== 'browser_abandonment') throw new HttpError(404, 'not_found', webhookMessages.pixelNotBrowseFlow);
    const flow = await flowOfRequest(request, request.params);
    const text = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (error) {
      await recordRejection(request, flow, rejectionReasons.malformedJson((error as Error).message), text || null);
      throw new HttpError(400, 'malformed_json', webhookMessages.malformedJson);
    }
    const pixel = pixelEventSchema.safeParse(payload);
    if (!pixel.success) {
      const problems = pixel.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
        .join('; ');
      await recordRejection(request, flow, rejectionReasons.notPixelEvent(problems), text);
      throw new HttpError(400, 'not_pixel_event', webhookMessages.notPixelEvent);
    }
    const stored = await storeAccepted(request, flow, readPixelIntakeDetails(pixel.data, flow), text);
    return reply.status(202).send({ eventId: stored.id, status: stored.status, duplicate: !stored.inserted });
  });
}

function isPixelRequest(request: FastifyRequest): boolean {
  return request.routeOptions.url === PIXEL_ROUTE;
}
