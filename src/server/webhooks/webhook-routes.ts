import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError, unlessRefused } from '../platform/http-errors.ts';
import { clientAddressKey } from '../platform/client-address.ts';
import { crossSiteReceiver } from '../platform/request-guards.ts';
import { storableText } from '../platform/json-text.ts';
import type { Intake, IntakeRequest } from '../intake/intake.ts';
import { PixelRateLimiter } from '../intake/pixel-rate-limiter.ts';
import { MAX_PIXEL_BODY_BYTES } from '../../shared/shopify-pixel/pixel-schemas.ts';
import { webhookMessages } from '../../shared/events/event-messages.ts';
import { webhookAcceptedSchema } from '../../shared/events/event-schemas.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/** The limit on a webhook body (docs/product/specification.md §9). */
export const MAX_WEBHOOK_BODY_BYTES = 1_048_576;

const webhookParamsSchema = z.object({ flowType: z.string().max(100), flowId: z.string().max(200) });
const pixelParamsSchema = z.object({ pixelKey: z.string().max(200) });

/** The browsing pixel's own public address (pixelUrlOf in shared/shopify-pixel). */
const PIXEL_ROUTE = '/api/pixel/:pixelKey';
/** Where the pixel sent before it had its own key; the address held the flow's secret URL. */
const RETIRED_PIXEL_ROUTE = '/api/webhooks/:flowType/:flowId/pixel';

export interface WebhookRouteOptions {
  intake: Intake;
  /** Browsing-pixel events accepted per source address and minute. */
  pixelRateLimitPerMinute: number;
}

/**
 * The public intake addresses: `POST /api/webhooks/{flowType}/{flowKey}`
 * (docs/product/specification.md §2; a browser GET of it is the handler page) and the
 * pixel's `POST /api/pixel/{pixelKey}`. They find the flow an address names and hand the
 * raw request to the intake module, which verifies, stores and answers
 * (src/server/intake/intake.ts). The plugin is encapsulated with its own content-type
 * parsers that keep the raw bytes (signatures are over them), so the rest of the API
 * keeps JSON parsing.
 */
export async function webhookRoutes(scope: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { intake } = options;
  const pixelLimiter = new PixelRateLimiter(options.pixelRateLimitPerMinute, app.clock);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY_BYTES }, (_request, body, done) => {
    done(null, body);
  });

  // A body refused before it is read (too large, a type we do not take) is still recorded
  // on the flow the address names, so the owner sees it; anything else goes to the app's handler.
  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest) => {
    const refusal = error.statusCode === 413 ? 'too_large' : error.statusCode === 415 ? 'unsupported_media_type' : null;
    if (!refusal) throw error;
    const pixel = isPixelRequest(request);
    const params = pixel ? pixelParamsSchema.safeParse(request.params) : webhookParamsSchema.safeParse(request.params);
    if (!params.success) throw error;
    const incoming = intakeRequestOf(request);
    const flow = unlessRefused(
      'pixelKey' in params.data
        ? await intake.flowOfPixelAddress(params.data.pixelKey)
        : await intake.flowOfWebhookAddress({ flowType: params.data.flowType, flowKey: params.data.flowId }, incoming),
    );
    // Thrown as the 413 or 415 the app's error handler answers with.
    throw HttpError.of(await intake.refuseUnreadBody(flow, pixel ? 'pixel' : 'webhook', incoming, refusal));
  });

  app.post('/api/webhooks/:flowType/:flowId', { config: crossSiteReceiver, schema: { params: webhookParamsSchema, response: { 202: webhookAcceptedSchema } } }, async (request, reply) => {
    const incoming = intakeRequestOf(request);
    const flow = unlessRefused(await intake.flowOfWebhookAddress({ flowType: request.params.flowType, flowKey: request.params.flowId }, incoming));
    const accepted = unlessRefused(await intake.accept({ kind: 'webhook', flow, request: incoming }));
    return reply.status(202).send(accepted);
  });

  /**
   * The browsing pixel: public, since its address sits in the storefront's code, so each
   * source address is rate-limited before the body is even read. Answers carry
   * Access-Control-Allow-Origin so the sandboxed pixel may read them.
   */
  app.post(
    PIXEL_ROUTE,
    {
      bodyLimit: MAX_PIXEL_BODY_BYTES,
      config: crossSiteReceiver,
      schema: { params: pixelParamsSchema, response: { 202: webhookAcceptedSchema } },
      onRequest: async (request, reply) => {
        reply.header('access-control-allow-origin', '*');
        const retryAfterSeconds = pixelLimiter.take(clientAddressKey(request.ip));
        if (retryAfterSeconds !== null) {
          request.log.info({ reason: 'pixel rate limit' }, 'webhook rejected');
          app.metrics.eventRejected('pixel', 'rate_limited');
          throw new HttpError(apiErrorCodes.rate_limited, webhookMessages.pixelRateLimited, { retryAfterSeconds });
        }
      },
    },
    async (request, reply) => {
      const flow = unlessRefused(await intake.flowOfPixelAddress(request.params.pixelKey));
      const accepted = unlessRefused(await intake.accept({ kind: 'pixel', flow, request: intakeRequestOf(request) }));
      return reply.status(202).send(accepted);
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
    throw new HttpError(apiErrorCodes.pixel_address_retired, webhookMessages.pixelAddressRetired);
  };
  // Answered on arrival, before a body is read, whatever the body is.
  app.post(RETIRED_PIXEL_ROUTE, { config: crossSiteReceiver, schema: { params: webhookParamsSchema }, onRequest: retiredPixelAddress }, retiredPixelAddress);
}

function isPixelRequest(request: FastifyRequest): boolean {
  return request.routeOptions.url === PIXEL_ROUTE;
}

function intakeRequestOf(request: FastifyRequest): IntakeRequest {
  const contentType = request.headers['content-type'];
  return {
    headers: request.headers,
    contentType: contentType === undefined ? null : storableText(contentType.slice(0, 200)),
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
  };
}
