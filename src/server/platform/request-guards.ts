import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors.ts';
import { requestMessages } from '../../shared/messages.ts';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for the cookie-authenticated API (docs/decisions/0005-csrf.md):
 * session cookies are SameSite=Lax, and every state-changing /api request from a
 * browser must come from our own origin (Origin, or Sec-Fetch-Site when Origin is
 * absent). Webhook receivers are exempt: they are called cross-site by design and
 * carry no cookie authority.
 */
export function registerCsrfGuard(app: FastifyInstance, publicUrl: string): void {
  const allowedOrigin = new URL(publicUrl).origin;
  app.addHook('onRequest', async (request) => {
    if (safeMethods.has(request.method)) return;
    if (!request.url.startsWith('/api/') || request.url.startsWith('/api/webhooks/')) return;
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const hostOrigin = `${request.protocol}://${request.headers.host ?? ''}`;
      if (origin !== allowedOrigin && origin !== hostOrigin) {
        throw new HttpError(403, 'cross_site', requestMessages.crossSite);
      }
      return;
    }
    const fetchSite = request.headers['sec-fetch-site'];
    if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
      throw new HttpError(403, 'cross_site', requestMessages.crossSite);
    }
  });
}
