import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

const packageVersion = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * `GET /api/openapi.json`: every public and owner API route, generated from the same zod
 * schemas that validate the requests (@fastify/swagger collects routes as they are added,
 * so this is registered before them). Pages, assets and the operators' routes are not API.
 */
export async function registerApiDescription(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Flowsmith',
        version: packageVersion,
        description: 'Shop events in, AI-written marketing content out, on the shopper\'s Klaviyo profile. Owner routes need a signed-in session cookie.',
      },
    },
    transform: (document) => {
      if (!document.url.startsWith('/api/') || document.url === '/api/openapi.json') return { schema: { hide: true }, url: document.url };
      return jsonSchemaTransform(document);
    },
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
