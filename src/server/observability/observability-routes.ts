import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findPendingMigrations } from '../database/migrate.ts';
import { HttpError } from '../platform/http-errors.ts';
import type { AppMetrics } from './metrics.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

export interface ObservabilityRouteOptions {
  metrics: AppMetrics;
  /** METRICS_TOKEN; unset, only a direct loopback request may read /metrics. */
  metricsToken: string | undefined;
}

const healthSchema = z.object({ status: z.literal('ok') });
const readinessSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  database: z.enum(['reachable', 'unreachable']),
  migrations: z.enum(['done', 'pending', 'unknown']),
});

/** Operators' routes stay served when the app sheds load (overload.ts), so they can see why. */
export const operationalRouteConfig = { pressureHandler: () => undefined };

/**
 * How operators watch Flowsmith (docs/decisions/0018-observability.md): `/healthz` says the
 * process is alive, `/readyz` whether it can serve (database reachable, migrations done),
 * `/metrics` how it is doing, in Prometheus' text format.
 */
export const observabilityRoutes: FastifyPluginAsync<ObservabilityRouteOptions> = async (scope, options) => {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { pool, availability } = app.database;

  app.get('/healthz', { config: operationalRouteConfig, schema: { hide: true, response: { 200: healthSchema } } }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', { config: operationalRouteConfig, schema: { hide: true, response: { 200: readinessSchema, 503: readinessSchema } } }, async (_request, reply) => {
    if (!(await availability.isReachable(2_000))) {
      return reply.status(503).header('retry-after', '5').send({ status: 'unavailable', database: 'unreachable', migrations: 'unknown' });
    }
    let pending: string[];
    try {
      pending = await findPendingMigrations(pool);
    } catch {
      // The database answered SELECT 1 but not this: it has no migrations table yet, or went away.
      return reply.status(503).header('retry-after', '5').send({ status: 'unavailable', database: 'reachable', migrations: 'unknown' });
    }
    if (pending.length > 0) return reply.status(503).header('retry-after', '5').send({ status: 'unavailable', database: 'reachable', migrations: 'pending' });
    return { status: 'ok' as const, database: 'reachable' as const, migrations: 'done' as const };
  });

  app.get('/metrics', { config: operationalRouteConfig, schema: { hide: true } }, async (request, reply) => {
    if (!mayReadMetrics(request, options.metricsToken)) {
      // Without a token there is nothing to ask for, so the route is not there for strangers.
      if (!options.metricsToken) throw new HttpError(apiErrorCodes.not_found, requestMessages.notFound);
      reply.header('www-authenticate', 'Bearer');
      throw new HttpError(apiErrorCodes.unauthorized, requestMessages.metricsUnauthorized);
    }
    const text = await options.metrics.scrape();
    return reply.type(options.metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  });
};

const loopbackAddresses = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/**
 * Counts of a business's events are not for strangers. With METRICS_TOKEN set, the caller
 * presents it as a bearer token; without, only a scraper on the same host may read, and a
 * request a proxy forwarded (it carries a forwarding header) is not one, even though its
 * socket is local.
 */
function mayReadMetrics(request: FastifyRequest, token: string | undefined): boolean {
  if (token) {
    const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    // Compared as digests, so neither the length nor the content leaks through timing.
    return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(token).digest());
  }
  const direct = forwardingHeaders.every((name) => request.headers[name] === undefined);
  return direct && loopbackAddresses.has(request.socket.remoteAddress ?? '');
}
