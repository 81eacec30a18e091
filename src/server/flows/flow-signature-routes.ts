import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { unlessRefused } from '../platform/http-errors.ts';
import { readFlowSignature, removeFlowSignature, requireFlowSignature, rotateFlowSigningSecret } from './flow-signature-queries.ts';

/**
 * "Require a signature" of a flow (docs/decisions/0012-generic-sender-signatures.md),
 * under /api/flows/{flowType}/signature in the signed-in context: the flow is the signed-in
 * owner's of that type, so no owner reaches another's. Turning on and generating a new
 * secret are the only answers that carry the secret in full; every other shows it masked.
 * Each change drops the receiver's cached secrets of the flow in this process.
 */
export interface FlowSignatureRoutesOptions {
  /**
   * The intake's cache of the secrets (intake/flow-signature-cache.ts): each change drops
   * the flow's entry. Named by what the routes need of it, since the intake reads flows.
   */
  flowSignatures: { invalidate(flowId: string): void };
}

export const flowSignatureRoutes: FastifyPluginAsyncZod<FlowSignatureRoutesOptions> = async (app, options) => {
  const { pool } = app.database;
  const cipher = app.credentialCipher;
  const cache = options.flowSignatures;

  await registerEndpoint(app, endpoints.flowSignature.read, { preHandler: rateLimited('read') }, async (request) => ({
    signature: unlessRefused(await readFlowSignature(pool, app.clock, request.user.id, request.params.flowType)),
  }));

  await registerEndpoint(app, endpoints.flowSignature.require, { preHandler: rateLimited('write') }, async (request, reply) => {
    const created = unlessRefused(await requireFlowSignature(pool, { cipher, clock: app.clock }, request.user.id, request.params.flowType));
    cache.invalidate(created.flowId);
    // The secret must not linger in a cache between the server and the owner's browser.
    reply.header('cache-control', 'no-store');
    return { signature: created.signature, secret: created.secret };
  });

  await registerEndpoint(app, endpoints.flowSignature.rotate, { preHandler: rateLimited('write') }, async (request, reply) => {
    const created = unlessRefused(await rotateFlowSigningSecret(pool, { cipher, clock: app.clock }, request.user.id, request.params.flowType));
    cache.invalidate(created.flowId);
    reply.header('cache-control', 'no-store');
    return { signature: created.signature, secret: created.secret };
  });

  await registerEndpoint(app, endpoints.flowSignature.remove, { preHandler: rateLimited('write') }, async (request) => {
    const removed = unlessRefused(await removeFlowSignature(pool, request.user.id, request.params.flowType));
    cache.invalidate(removed.flowId);
    return { signature: removed.signature };
  });
};
