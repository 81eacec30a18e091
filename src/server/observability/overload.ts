import type { FastifyInstance } from 'fastify';
import underPressure from '@fastify/under-pressure';
import { HttpError } from '../platform/http-errors.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

export interface OverloadLimits {
  /** Event-loop delay past which requests are turned away (0 turns the check off). */
  maxEventLoopDelayMs: number;
  /** Heap in use past which requests are turned away (0 turns the check off). */
  maxHeapUsedBytes: number;
  /** How often the process samples itself. */
  sampleIntervalMs: number;
}

/**
 * A delay of a second means every request already waits that long; answering 503 with
 * Retry-After at once lets senders (Shopify retries) come back instead of timing out, and
 * lets the process catch up. Utilisation is not a limit: a busy process serving well
 * runs near 100 %.
 */
export const defaultOverloadLimits: OverloadLimits = { maxEventLoopDelayMs: 1_000, maxHeapUsedBytes: 0, sampleIntervalMs: 1_000 };

const RETRY_AFTER_SECONDS = 5;

/** Sheds load early (@fastify/under-pressure); routes with their own `pressureHandler` (the operators') are served anyway. */
export async function registerOverloadGuard(app: FastifyInstance, limits: OverloadLimits): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    sampleInterval: limits.sampleIntervalMs,
    pressureHandler: async (request, _reply, type) => {
      request.log.warn({ pressure: type }, 'overloaded: request turned away');
      throw new HttpError(apiErrorCodes.overloaded, requestMessages.overloaded, { retryAfterSeconds: RETRY_AFTER_SECONDS });
    },
  });
}
