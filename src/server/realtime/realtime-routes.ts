import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError, unlessRefused } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import type { Intake } from '../intake/intake.ts';
import { findFlowByWebhookKey, findFlowForUser, listFlowsForUser } from '../flows/flow-queries.ts';
import type { ChangeFeed } from './change-feed.ts';
import { formatChangeCursor, parseChangeCursor, streamStartCursor, type ChangeCursor, type EventChange } from './event-change-queries.ts';
import { flowTypes, type FlowType } from '../../shared/flows/flow-types.ts';
import { requestMessages, streamMessages } from '../../shared/messages.ts';
import { streamChangeEventName } from '../../shared/webhooks/stream-changes.ts';
import { webhookConsoleMessages, webhookHandlerMessages } from '../../shared/webhooks/webhook-messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

/** A comment line now and then keeps proxies and browsers from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** How soon a browser reconnects after a dropped stream. */
const RECONNECT_MS = 1_000;

const streamHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

export interface LiveStreamRoutesOptions {
  /** The process's one change feed, started and stopped with the background work (src/server/background/). */
  feed: ChangeFeed;
}

export interface TestSendRoutesOptions {
  /** Takes the test event in as the webhook receiver's are, with its job in one transaction. */
  intake: Intake;
}

/**
 * One change as an SSE message. Never throws: a change that cannot be serialised (a
 * payload beyond what payloadOf bounds, say) goes out with a short placeholder instead
 * of its payload and texts, so the stream, and the process, carry on.
 */
export function sseMessage(change: EventChange): string {
  const { flowId: _flowId, cursor: _cursor, ...data } = change;
  const frame = (json: string) => `id: ${change.changeId}\nevent: ${streamChangeEventName}\ndata: ${json}\n\n`;
  try {
    return frame(JSON.stringify(data));
  } catch {
    try {
      return frame(JSON.stringify({ ...data, payload: streamMessages.changeUnreadable, generations: [], error: typeof data.error === 'string' ? data.error.slice(0, 1_000) : null }));
    } catch {
      return `: ${streamMessages.changeUnreadable}\n\n`;
    }
  }
}

/*
 * The Webhook Test Console's server side (docs/decisions/0009-live-stream.md), in three
 * plugins: the live stream of a flow's events and the test send (both signed-in), and
 * the handler page's status check (public).
 */

/**
 * /api/stream/{flowType}, in the signed-in context. Its change feed polls while a stream is
 * open, and its streams are closed before the server.
 */
export const liveStreamRoutes: FastifyPluginAsyncZod<LiveStreamRoutesOptions> = async (app, options) => {
  const { pool } = app.database;
  const { feed } = options;
  // preClose: open streams would otherwise keep the server from closing. The background
  // work stops the feed again at onClose, which does nothing more.
  app.addHook('preClose', () => feed.stop());

  await registerEndpoint(app, endpoints.stream.flow, { preHandler: rateLimited('read') }, async (request, reply) => {
    const flow = await findFlowForUser(pool, request.user.id, request.params.flowType);
    if (!flow) throw new HttpError(apiErrorCodes.not_found, requestMessages.notFound);
    const resumeFrom = resumeCursor(request.headers['last-event-id'], request.query.lastEventId);
    // HEAD asks whether the stream is there: its headers, and no stream to hold open.
    if (request.method === 'HEAD') return reply.status(200).headers(streamHeaders).send();
    const after = resumeFrom ?? (await streamStartCursor(pool));
    openStream(reply, [flow.id], after);
  });

  /**
   * /api/stream: the changes of all the owner's flows in one stream, for the dashboard,
   * which would otherwise hold one connection per flow (browsers allow six per host).
   * Cursors are one order across flows, so one cursor resumes every flow.
   */
  await registerEndpoint(app, endpoints.stream.all, { preHandler: rateLimited('read') }, async (request, reply) => {
    const resumeFrom = resumeCursor(request.headers['last-event-id'], request.query.lastEventId);
    if (request.method === 'HEAD') return reply.status(200).headers(streamHeaders).send();
    const flows = await listFlowsForUser(pool, request.user.id);
    openStream(
      reply,
      flows.map((flow) => flow.id),
      resumeFrom ?? (await streamStartCursor(pool)),
    );
  });

  /**
   * Where a stream resumes: the header is what EventSource sends on its own reconnects;
   * the query parameter is for a stream the console opens again after the browser gave up
   * on one. Anything else (an earlier version's bare change id) starts afresh.
   */
  function resumeCursor(header: string | string[] | undefined, query: string | undefined): ChangeCursor | null {
    const lastEventId = typeof header === 'string' && header.trim() ? header.trim() : query;
    return lastEventId ? parseChangeCursor(lastEventId) : null;
  }

  /** Holds the response open as an SSE stream of the given flows' changes after `after`. */
  function openStream(reply: FastifyReply, flowIds: string[], after: ChangeCursor): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { ...streamHeaders, connection: 'keep-alive' });
    // The first id tells the browser where it is, so even a reconnect before any event
    // resumes from here rather than from "now".
    raw.write(`retry: ${RECONNECT_MS}\nid: ${formatChangeCursor(after)}\nevent: ready\ndata: {}\n\n`);
    const heartbeat = setInterval(() => {
      if (!raw.writableEnded && !raw.destroyed) raw.write(': heartbeat\n\n');
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let unsubscribes: Array<() => void> = [];
    const end = () => {
      clearInterval(heartbeat);
      for (const unsubscribe of unsubscribes) unsubscribe();
      unsubscribes = [];
    };
    unsubscribes = flowIds.map((flowId) =>
      feed.subscribe({
        flowId,
        after,
        send: (changes) => {
          if (!raw.writableEnded && !raw.destroyed) raw.write(changes.map(sseMessage).join(''));
        },
        close: () => {
          end();
          raw.end();
        },
      }),
    );
    raw.on('close', end);
    raw.on('error', end);
  }
};

/** /api/test-webhooks/{flowType}, in the signed-in context: the console's test send. */
export const testSendRoutes: FastifyPluginAsyncZod<TestSendRoutesOptions> = async (app, options) => {
  const { pool } = app.database;
  /**
   * Stores the console's payload exactly as the webhook receiver stores a POST to the
   * flow's URL (the same intake, the same transaction with its job), marked as a test
   * by this signed-in route and by nothing a sender can write.
   */
  await registerEndpoint(app, endpoints.webhooks.testSend, { preHandler: rateLimited('write') }, async (request, reply) => {
    const flow = await findFlowForUser(pool, request.user.id, request.params.flowType);
    if (!flow) throw new HttpError(apiErrorCodes.not_found, requestMessages.notFound);
    if (!flow.webhookUrl) throw new HttpError(apiErrorCodes.no_webhook_url, webhookConsoleMessages.noWebhookUrl);
    const stored = unlessRefused(await options.intake.accept({ kind: 'test', flow, payloadText: request.body.payload, dryRun: request.body.dryRun ?? false }));
    return reply.status(202).send({ success: true, ...stored });
  });
};

/**
 * /api/webhook-status/{flowType}/{flowId}: the handler page's check, public like the
 * webhook URL itself, and saying no more than a POST would.
 */
export const webhookStatusRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  await registerEndpoint(app, endpoints.webhooks.status, { config: { rateLimit: { max: 60, timeWindow: 60_000 } }, }, async (request) => {
    const { flowType, flowId } = request.params;
    const known = (flowTypes as readonly string[]).includes(flowType);
    // The URL names the flow by its key, as the webhook route reads it: a rotated-away key
    // is unknown here as soon as the webhook route stops taking it.
    const flow = known ? await findFlowByWebhookKey(pool, flowId, app.clock.now()) : null;
    if (!flow || flow.flowType !== flowType) throw new HttpError(apiErrorCodes.not_found, webhookHandlerMessages.notFound);
    return {
      success: flow.isActive,
      message: flow.isActive ? webhookHandlerMessages.active : webhookHandlerMessages.inactive,
      flowType: flow.flowType as FlowType,
      flowId,
      timestamp: app.clock.now().toISOString(),
    };
  });
};
