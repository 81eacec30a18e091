import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './http-errors.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Route config of the receivers that are called cross-site by design and carry no cookie
 * authority: the flows' webhook addresses, Shopify's privacy webhooks and the browsing
 * pixel, which a storefront on the shop's own origin (or Shopify's sandboxed frame, whose
 * origin is `null`) posts to. Each verifies what it receives by itself (a signature, a
 * secret address, or nothing trusted at all), so the origin check has nothing to protect.
 */
export const crossSiteReceiver = { crossSiteReceiver: true } as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    crossSiteReceiver?: boolean;
  }
}

function isCrossSiteReceiver(request: FastifyRequest): boolean {
  return request.routeOptions.config?.crossSiteReceiver === true;
}

/**
 * CSRF defence for the cookie-authenticated API (docs/decisions/0005-csrf.md):
 * session cookies are SameSite=Lax, and every state-changing /api request from a
 * browser must come from our own origin (Origin, or Sec-Fetch-Site when Origin is
 * absent). Routes marked `crossSiteReceiver` are exempt. The mark sits on the route,
 * not on a path prefix, so a receiver added under a new path is not refused by accident
 * (the pixel's /api/pixel/ was) and no owner route is exempted by sitting under one.
 */
export function registerCsrfGuard(app: FastifyInstance, publicUrl: string): void {
  const allowedOrigin = new URL(publicUrl).origin;
  app.addHook('onRequest', async (request) => {
    if (safeMethods.has(request.method)) return;
    if (!request.url.startsWith('/api/') || isCrossSiteReceiver(request)) return;
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const hostOrigin = `${request.protocol}://${request.headers.host ?? ''}`;
      if (origin !== allowedOrigin && origin !== hostOrigin) {
        throw new HttpError(apiErrorCodes.cross_site, requestMessages.crossSite);
      }
      return;
    }
    const fetchSite = request.headers['sec-fetch-site'];
    if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
      throw new HttpError(apiErrorCodes.cross_site, requestMessages.crossSite);
    }
  });
}
