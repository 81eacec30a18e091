import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Queryable } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { sandboxKlaviyo, sandboxOpenAi, sandboxShopify } from './sandbox-services.ts';

export interface SandboxAddresses {
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  /** Replaces `https://{shop}` for the sample shop's Admin API. */
  shopifyShopUrl: string;
}

export interface SandboxListener {
  addresses(): SandboxAddresses;
  close(): Promise<void>;
}

/**
 * The sandbox services on their own HTTP listener, bound to 127.0.0.1 on a port of the
 * system's choosing, in every process that runs the engine: the engine reaches them
 * through its ordinary integration modules, as it would the real services, and nothing
 * outside the machine can. On the machine a caller still needs an owner's sandbox token,
 * and all a token allows is to write that owner's sandbox profiles.
 */
export async function startSandboxListener(deps: { db: Queryable; clock: Clock; logger: Logger }): Promise<SandboxListener> {
  const server: FastifyInstance = Fastify({
    loggerInstance: deps.logger.child({ module: 'sandbox' }) as FastifyBaseLogger,
    bodyLimit: 5 * 1_048_576,
  });
  server.addContentTypeParser(['application/vnd.api+json'], { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch (error) {
      (error as { statusCode?: number }).statusCode = 400;
      done(error as Error, undefined);
    }
  });
  const options = { db: deps.db, clock: deps.clock };
  await server.register(sandboxOpenAi, { ...options, prefix: '/openai/v1' });
  await server.register(sandboxKlaviyo, { ...options, prefix: '/klaviyo' });
  await server.register(sandboxShopify, { ...options, prefix: '/shopify' });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const addresses: SandboxAddresses = { openaiBaseUrl: `${origin}/openai/v1`, klaviyoBaseUrl: `${origin}/klaviyo`, shopifyShopUrl: `${origin}/shopify` };
  return { addresses: () => addresses, close: () => server.close() };
}
