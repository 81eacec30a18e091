import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import type { Endpoint, EndpointSchemas } from '../../shared/api/endpoint.ts';

type Output<S, K extends keyof EndpointSchemas> = S extends { [key in K]: infer T extends z.ZodType } ? z.output<T> : unknown;

/** The request a handler of the endpoint sees: params, query and body as its schemas read them. */
export type EndpointRequest<S extends EndpointSchemas> = FastifyRequest<{
  Params: Output<S, 'params'>;
  Querystring: Output<S, 'query'>;
  Body: Output<S, 'body'>;
}>;

/** What the handler returns: the answer its response schema serialises, or the reply it sent itself. */
type EndpointAnswer<S extends EndpointSchemas> = (S extends { response: infer T extends z.ZodType } ? z.input<T> : void) | FastifyReply;

/** A route's own settings besides its method, path and schemas: its guards, limits and config. */
export type EndpointOptions = Pick<RouteShorthandOptions, 'preHandler' | 'onRequest' | 'config' | 'bodyLimit'>;

/**
 * Registers one route of the shared endpoint table (src/shared/api/endpoints.ts): its
 * method, path and schemas come from the table, so they are written once for the server,
 * the browser and the API description. The scope's prefix (a feature's plugin registered
 * under `/api/flows`) is taken off the table's full path, and a path outside the prefix
 * fails at start rather than answering somewhere else.
 */
export async function registerEndpoint<S extends EndpointSchemas>(
  scope: FastifyInstance,
  endpoint: Endpoint<S>,
  options: EndpointOptions,
  handler: (request: EndpointRequest<S>, reply: FastifyReply) => Promise<EndpointAnswer<S>> | EndpointAnswer<S>,
): Promise<void> {
  const prefix = scope.prefix;
  if (!endpoint.path.startsWith(prefix)) throw new Error(`${endpoint.method} ${endpoint.path} is registered under ${prefix}`);
  const schemas = await endpoint.schemas();
  scope.route({
    ...options,
    method: endpoint.method,
    url: endpoint.path.slice(prefix.length) || '/',
    schema: {
      ...(schemas.params ? { params: schemas.params } : {}),
      ...(schemas.query ? { querystring: schemas.query } : {}),
      ...(schemas.body ? { body: schemas.body } : {}),
      ...(schemas.response ? { response: { [endpoint.status]: schemas.response } } : {}),
    },
    // The schemas above are what Fastify validates the request with, so the request the
    // handler is typed for is the one it gets.
    handler: handler as unknown as RouteHandlerMethod,
  });
}
