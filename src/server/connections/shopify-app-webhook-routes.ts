import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type pg from 'pg';
import { HttpError } from '../platform/http-errors.ts';
import { crossSiteReceiver } from '../platform/request-guards.ts';
import { verifyShopifySignature } from '../intake/shopify-signature.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { privacyMessages } from '../../shared/privacy/privacy-messages.ts';
import { isComplianceTopic, MAX_PRIVACY_WEBHOOK_BYTES, parseShopifyWebhookJson, storeComplianceRequest } from '../privacy/privacy-webhook-routes.ts';
import type { PrivacyWork } from '../privacy/privacy-work.ts';
import type { Clock } from '../platform/clock.ts';
import { SHOPIFY_APP_WEBHOOKS_PATH, type ShopifyInstallations } from './shopify-installations.ts';

const scopesUpdateSchema = z.looseObject({ current: z.array(z.string().max(100)).max(200) });

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * POST /api/shopify-app/webhooks: the webhooks of the deployment's own Shopify app, one
 * address for every shop, signed with the app's client secret
 * (docs/decisions/0048-connect-by-oauth.md). `app/uninstalled` ends the shop's tokens at
 * once and tells its owner; `app/scopes_update` keeps the granted scopes true; the three
 * compliance topics are stored for the shop's owner like those sent to an owner's own
 * privacy address. Every verified delivery is answered 200, a shop Flowsmith does not know
 * included (there is nothing to do for it); an unsigned or forged one 401.
 */
export async function shopifyAppWebhookRoutes(
  app: FastifyInstance,
  options: { installations: ShopifyInstallations; pool: pg.Pool; clock: Clock; privacyWork: PrivacyWork },
): Promise<void> {
  const { installations } = options;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: MAX_PRIVACY_WEBHOOK_BYTES }, (_request, body, done) => done(null, body));

  app.post(SHOPIFY_APP_WEBHOOKS_PATH, { bodyLimit: MAX_PRIVACY_WEBHOOK_BYTES, config: crossSiteReceiver }, async (request, reply) => {
    const secret = installations.appSecret();
    if (!secret) throw new HttpError(apiErrorCodes.not_found, 'This Flowsmith has no Shopify app.');
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const signature = headerOf(request.headers['x-shopify-hmac-sha256']);
    if (!signature || !verifyShopifySignature(body, signature, [secret])) {
      request.log.info({ reason: signature ? 'bad signature' : 'no signature' }, 'app webhook refused');
      throw new HttpError(apiErrorCodes.bad_signature, privacyMessages.invalidSignature);
    }
    const topic = headerOf(request.headers['x-shopify-topic']);
    const shop = headerOf(request.headers['x-shopify-shop-domain'])?.trim().toLowerCase().slice(0, 255) ?? '';
    if (!topic) throw new HttpError(apiErrorCodes.topic_missing, privacyMessages.unknownTopic);
    if (topic === 'app/uninstalled') {
      const userId = await installations.uninstalled(shop);
      request.log.info({ shop, known: userId !== null }, 'the app was uninstalled from a shop');
      return reply.status(200).send({ received: true });
    }
    if (topic === 'app/scopes_update') {
      const parsed = scopesUpdateSchema.safeParse(parseShopifyWebhookJson(body));
      if (!parsed.success) throw new HttpError(apiErrorCodes.invalid_body, privacyMessages.malformedBody);
      await installations.scopesUpdated(shop, parsed.data.current);
      return reply.status(200).send({ received: true });
    }
    if (isComplianceTopic(topic)) {
      const userId = await installations.ownerOfShop(shop);
      if (userId) await storeComplianceRequest({ pool: options.pool, clock: options.clock, work: options.privacyWork, log: request.log }, userId, body, request.headers);
      else request.log.info({ topic }, 'a compliance webhook for a shop without an owner here; nothing is kept for it');
      return reply.status(200).send({ received: true });
    }
    throw new HttpError(apiErrorCodes.unknown_topic, privacyMessages.unknownTopic);
  });
}
