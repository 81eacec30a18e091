import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../platform/http-errors.ts';
import { crossSiteReceiver } from '../platform/request-guards.ts';
import { verifyShopifySignature } from '../intake/shopify-signature.ts';
import { JsonTextError, parseJsonText } from '../platform/json-text.ts';
import { privacyMessages } from '../../shared/privacy/privacy-messages.ts';
import { findOwnerOfPrivacyKey, recordPrivacyRequest } from './privacy-queries.ts';
import type { PrivacyWork } from './privacy-work.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/** Shopify's compliance payloads are a few hundred bytes; anything near this is not one. */
export const MAX_PRIVACY_WEBHOOK_BYTES = 64 * 1024;

const paramsSchema = z.object({ ownerKey: z.string().max(200) });

const shopSchema = z.object({ shop_domain: z.string().trim().toLowerCase().min(1).max(255) });
/**
 * Shopify's ids are 64-bit integers (788032119674292922): parseJsonText gives those beyond
 * JavaScript's safe integers as their exact digits, the others as numbers; both are kept
 * as digit strings.
 */
const shopifyId = z.union([z.number().int().nonnegative(), z.string().trim().regex(/^\d{1,20}$/)]).transform(String);
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((value) => value || null);
/** Any part may be empty or absent: `"email": ""` for a shopper without one, no id for a guest. */
const customerSchema = z.object({
  id: shopifyId.nullish(),
  email: optionalText(320).transform((value) => value?.toLowerCase() ?? null),
  phone: optionalText(40),
});
const orderIdsSchema = z.array(shopifyId).max(10_000).nullish();
const customerRequestSchema = shopSchema.extend({
  customer: customerSchema,
  orders_to_redact: orderIdsSchema,
  orders_requested: orderIdsSchema,
});

const topics = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;

export interface PrivacyWebhookRouteOptions {
  /** The owner's Shopify signing secrets (current and rotating), decrypted. */
  loadShopifySecrets: (userId: string) => Promise<string[]>;
  /** Carries the stored requests out; started by the background module in the worker roles. */
  work: PrivacyWork;
}

/**
 * POST /api/privacy-webhooks/{ownerKey}: Shopify's three compliance webhooks, for the
 * owner the key names. Verified like every Shopify request (HMAC over the raw body with
 * the owner's signing secrets), stored, answered 200, and carried out by PrivacyWork
 * (a background part of the worker roles: src/server/background/).
 */
export async function privacyWebhookRoutes(scope: FastifyInstance, options: PrivacyWebhookRouteOptions): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { pool } = app.database;
  const { work } = options;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: MAX_PRIVACY_WEBHOOK_BYTES }, (_request, body, done) => done(null, body));

  app.post(
    '/api/privacy-webhooks/:ownerKey',
    { bodyLimit: MAX_PRIVACY_WEBHOOK_BYTES, config: crossSiteReceiver, schema: { params: paramsSchema, response: { 200: z.object({ received: z.literal(true) }) } } },
    async (request, reply) => {
      const userId = await findOwnerOfPrivacyKey(pool, request.params.ownerKey);
      if (!userId) throw new HttpError(apiErrorCodes.not_found, privacyMessages.unknownAddress);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = headerOf(request.headers['x-shopify-hmac-sha256']);
      const secrets = signature ? await options.loadShopifySecrets(userId) : [];
      if (!signature || !verifyShopifySignature(body, signature, secrets)) {
        request.log.info({ reason: signature ? 'bad signature' : 'no signature' }, 'privacy webhook refused');
        throw new HttpError(apiErrorCodes.bad_signature, privacyMessages.invalidSignature);
      }
      await storeComplianceRequest({ pool, clock: app.clock, work, log: request.log }, userId, body, request.headers);
      return reply.status(200).send({ received: true });
    },
  );
}

/** The three compliance topics Shopify sends (set in the app's configuration). */
export function isComplianceTopic(topic: string | undefined): boolean {
  return topics.some((candidate) => candidate === topic);
}

/**
 * Stores one verified compliance webhook for the owner and wakes the privacy work: a
 * duplicate delivery (same webhook id) is stored once. Throws HttpError (4xx) for an
 * unknown topic or a body that is not one of Shopify's payloads.
 */
export async function storeComplianceRequest(
  deps: { pool: pg.Pool; clock: { now(): Date }; work: PrivacyWork; log: { info(object: object, message: string): void } },
  userId: string,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
): Promise<void> {
  const topic = topics.find((candidate) => candidate === headerOf(headers['x-shopify-topic']));
  if (!topic) throw new HttpError(apiErrorCodes.unknown_topic, privacyMessages.unknownTopic);
  const json = parseShopifyWebhookJson(body);
  const parsed = topic === 'shop/redact' ? shopSchema.safeParse(json) : customerRequestSchema.safeParse(json);
  if (!parsed.success) throw new HttpError(apiErrorCodes.invalid_body, privacyMessages.malformedBody);
  const customerRequest = topic === 'shop/redact' ? null : (parsed.data as z.infer<typeof customerRequestSchema>);
  const customer = customerRequest?.customer ?? null;
  const triggeredAt = new Date(headerOf(headers['x-shopify-triggered-at']) ?? '');
  const stored = await recordPrivacyRequest(deps.pool, {
    userId,
    topic,
    shopDomain: parsed.data.shop_domain,
    shopperEmail: customer?.email ?? null,
    customerId: customer?.id ?? null,
    shopperPhone: customer?.phone ?? null,
    orderIds: [...new Set([...(customerRequest?.orders_to_redact ?? []), ...(customerRequest?.orders_requested ?? [])])],
    webhookId: headerOf(headers['x-shopify-webhook-id'])?.slice(0, 200) ?? null,
    requestedAt: Number.isNaN(triggeredAt.getTime()) ? null : triggeredAt,
    receivedAt: deps.clock.now(),
  });
  deps.log.info({ privacyRequestId: stored.id || null, topic, duplicate: stored.duplicate }, 'privacy webhook stored');
  if (!stored.duplicate) deps.work.kick();
}

/** A Shopify webhook's JSON body, read like every body from outside: bounded nesting, exact ids, text PostgreSQL can store. */
export function parseShopifyWebhookJson(body: Buffer): unknown {
  try {
    return parseJsonText(body.toString('utf8'));
  } catch (error) {
    if (error instanceof JsonTextError) throw new HttpError(apiErrorCodes.malformed_json, privacyMessages.malformedBody);
    throw error;
  }
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
