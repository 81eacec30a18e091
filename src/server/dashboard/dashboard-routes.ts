import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { flowTypes } from '../../shared/flows/flow-types.ts';
import { type DashboardFlow, type DashboardProcessing, type FlowHealth } from '../../shared/dashboard/dashboard-schemas.ts';
import { findSetupFacts, listFlowFacts, type FlowFacts } from './dashboard-queries.ts';
import { countArrivedAndFinished, findOwnerEventsBehind } from '../events/event-log-queries.ts';
import { findDatabaseBytes } from '../database/database-size-queries.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A flow's health from its events (docs/decisions/0027-dashboard-and-narrow-screens.md):
 * nothing yet, or failing when the last event it finished in the last day failed (a
 * later delivery means it works again), or else working.
 */
export function flowHealth(facts: Pick<FlowFacts, 'lastEvent' | 'lastOutcome'>): FlowHealth {
  if (!facts.lastEvent) return 'no_events';
  return facts.lastOutcome === 'failed' ? 'failing' : 'working';
}

/**
 * GET /api/dashboard, in the signed-in context: the owner's checklist, flows and
 * processing, counted from nobody else's events. The database's size is the one figure
 * not the owner's own: it is what the disk holds, for whoever runs the app.
 */
export const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  const databaseKind: DashboardProcessing['database']['kind'] = app.database.embedded ? 'embedded' : 'server';
  await registerEndpoint(app, endpoints.dashboard.read, { preHandler: rateLimited('read') }, async (request) => {
    const userId = request.user.id;
    const now = app.clock.now();
    const since = new Date(now.getTime() - DAY_MS);
    const [setup, flows, behind, lastHour, databaseBytes] = await Promise.all([
      findSetupFacts(pool, userId),
      listFlowFacts(pool, userId, since),
      findOwnerEventsBehind(pool, userId, now),
      countArrivedAndFinished(pool, userId, new Date(now.getTime() - HOUR_MS)),
      // A size that cannot be read is shown as unknown, not as a failed dashboard.
      findDatabaseBytes(pool).catch(() => null),
    ]);
    const byType = new Map(flows.map((flow) => [flow.flowType, flow]));
    return {
      setup: [
        { id: 'keys' as const, done: setup.credentialsSaved },
        { id: 'store' as const, done: setup.storeEventReceived },
        { id: 'pixel' as const, done: setup.pixelEventReceived },
        { id: 'event' as const, done: setup.anyEventReceived },
      ],
      // A new owner's flows may not be stored yet; each still gets its row.
      flows: flowTypes.map((flowType): DashboardFlow => {
        const facts = byType.get(flowType);
        if (!facts) return { flowType, isActive: false, health: 'no_events', lastEvent: null, deliveries24h: 0, failures24h: 0 };
        return {
          flowType,
          isActive: facts.isActive,
          health: flowHealth(facts),
          lastEvent: facts.lastEvent ? { receivedAt: facts.lastEvent.receivedAt.toISOString(), status: facts.lastEvent.status } : null,
          deliveries24h: facts.deliveries,
          failures24h: facts.failures,
        };
      }),
      processing: {
        behind: behind.count,
        oldestBehindSeconds: behind.oldestSeconds,
        arrivedLastHour: lastHour.arrived,
        finishedLastHour: lastHour.finished,
        database: { kind: databaseKind, sizeBytes: databaseBytes },
      },
      since: since.toISOString(),
    };
  });
};
