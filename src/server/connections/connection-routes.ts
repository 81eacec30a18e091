import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { HttpError } from '../platform/http-errors.ts';
import { readSessionUser } from '../auth/session.ts';
import type { AuthLibrary } from '../auth/auth-library.ts';
import { connectionReturnPages } from '../../shared/connections/connection-schemas.ts';
import { connectionWords as w } from './connection-words.ts';
import { SHOPIFY_CALLBACK_PATH, SHOPIFY_INSTALL_PATH, type CallbackOutcome, type ShopifyInstallations } from './shopify-installations.ts';
import { KLAVIYO_CALLBACK_PATH, type KlaviyoConnections } from './klaviyo-connections.ts';

export interface ConnectionServices {
  shopify: ShopifyInstallations;
  klaviyo: KlaviyoConnections;
}

/** The signed-in owner's connections: status, starting one, disconnecting Klaviyo. */
export const connectionRoutes: FastifyPluginAsyncZod<{ connections: ConnectionServices }> = async (app, options) => {
  const { shopify, klaviyo } = options.connections;
  const notOffered = (words: string) => new HttpError(apiErrorCodes.connection_not_offered, words);

  await registerEndpoint(app, endpoints.connections.status, { preHandler: rateLimited('read') }, async (request) => ({
    offered: { shopify: shopify.offered, klaviyo: klaviyo.offered },
    shopify: await shopify.status(request.user.id),
    klaviyo: await klaviyo.status(request.user.id),
  }));

  await registerEndpoint(app, endpoints.connections.startShopify, { preHandler: rateLimited('write') }, async (request) => {
    if (!shopify.offered) throw notOffered(w.shopifyNotOffered);
    const owner = await shopify.ownerOfShop(request.body.shop);
    const status = owner && owner !== request.user.id ? await shopify.status(owner) : null;
    if (status?.state === 'connected') {
      throw new HttpError(apiErrorCodes.shop_taken, 'This shop is connected to another Flowsmith account. Disconnect it there first (or uninstall the app from the shop), then connect it here.', {
        fieldErrors: { shop: 'This shop is connected to another Flowsmith account.' },
      });
    }
    return { authorizeUrl: await shopify.begin(request.user.id, request.body.shop, request.body.returnTo) };
  });

  await registerEndpoint(app, endpoints.connections.startKlaviyo, { preHandler: rateLimited('write') }, async (request) => {
    if (!klaviyo.offered) throw notOffered(w.klaviyoNotOffered);
    return { authorizeUrl: await klaviyo.begin(request.user.id, request.body.returnTo) };
  });

  await registerEndpoint(app, endpoints.connections.disconnectKlaviyo, { preHandler: rateLimited('write') }, async (request) => {
    const { revoked } = await klaviyo.disconnect(request.user.id);
    return { disconnected: true as const, revoked };
  });
};

/** Every value of a query as one string (a repeated key keeps its first value), at most 40 keys. */
const callbackQuerySchema = z.record(z.string().max(64), z.union([z.string().max(2048), z.array(z.string().max(2048)).max(10)])).transform((query) => {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(query).slice(0, 40)) flat[key] = Array.isArray(value) ? (value[0] ?? '') : value;
  return flat;
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A page of its own for a callback that is refused: nothing a stranger sent is shown on it. */
function refusedPage(reply: FastifyReply, reason: string) {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(w.refusedPageTitle)} · Flowsmith</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5">
<h1>${escapeHtml(w.refusedPageTitle)}</h1><p role="alert">${escapeHtml(reason)}</p>
<p><a href="/settings/api">${escapeHtml(w.backToSettings)}</a></p></body></html>`;
  return reply.status(400).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
}

function returnAddress(returnTo: string, query: Record<string, string>): string {
  const page = (connectionReturnPages as readonly string[]).includes(returnTo) ? returnTo : '/settings/api';
  return `${page}?${new URLSearchParams(query).toString()}`;
}

function answerOutcome(reply: FastifyReply, service: 'shopify' | 'klaviyo', outcome: CallbackOutcome) {
  if (outcome.kind === 'refused') return refusedPage(reply, outcome.reason);
  const query: Record<string, string> = outcome.kind === 'connected' ? { connected: service } : { connection_error: outcome.code, service };
  return reply.header('cache-control', 'no-store').redirect(returnAddress(outcome.returnTo, query), 303);
}

/**
 * Where the services send the owner's browser back: outside the signed-in context, as a
 * visitor may arrive signed out (then the callback is refused with a page, not a 401),
 * and each checks its own proof (Shopify's hmac, the one-time state bound to the owner).
 * The session cookie comes with these top-level navigations (SameSite=Lax).
 */
export async function connectionCallbackRoutes(app: FastifyInstance, options: { connections: ConnectionServices; auth: AuthLibrary }): Promise<void> {
  const { shopify, klaviyo } = options.connections;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const limits = { config: { rateLimit: { max: 30, timeWindow: 60_000 } } };

  typed.get(SHOPIFY_CALLBACK_PATH, { ...limits, schema: { querystring: callbackQuerySchema } }, async (request, reply) => {
    const user = await readSessionUser(options.auth, request, reply);
    return answerOutcome(reply, 'shopify', await shopify.complete(request.query as Record<string, string>, user?.id ?? null));
  });

  typed.get(KLAVIYO_CALLBACK_PATH, { ...limits, schema: { querystring: callbackQuerySchema } }, async (request, reply) => {
    const user = await readSessionUser(options.auth, request, reply);
    return answerOutcome(reply, 'klaviyo', await klaviyo.complete(request.query as Record<string, string>, user?.id ?? null));
  });

  // Shopify's install link (the app's URL in its configuration): a genuine one starts the
  // connection for the signed-in owner; a signed-out one goes to API Settings with the shop
  // filled in, after sign-in.
  typed.get(SHOPIFY_INSTALL_PATH, { ...limits, schema: { querystring: callbackQuerySchema } }, async (request, reply) => {
    const query = request.query as Record<string, string>;
    const shop = await shopify.launchedShop(query);
    if (!shop) return refusedPage(reply, w.forgedCallback);
    const user = await readSessionUser(options.auth, request, reply);
    if (!user) return reply.header('cache-control', 'no-store').redirect(`/settings/api?${new URLSearchParams({ shop }).toString()}`, 303);
    return reply.header('cache-control', 'no-store').redirect(await shopify.begin(user.id, shop, '/settings/api'), 303);
  });
}
