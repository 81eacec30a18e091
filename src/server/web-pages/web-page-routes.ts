import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { requestMessages } from '../../shared/messages.ts';
import { flowPageRoutes, flowSectionPath, flowSections, pageRoutes, webhookPagePattern } from '../../shared/routes.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/** Where assets live under the build; their names carry a hash of their content. */
const assetsPrefix = '/assets/';

/**
 * Serves the built web app (docs/decisions/0024-serving-pages.md): the pages of
 * docs/product/specification.md §2 as index.html, its hashed assets, and the redirects
 * for everything else.
 *
 * - index.html is revalidated on every use (`no-cache` with an ETag), so a deploy shows at
 *   once, while the back/forward cache keeps working (browsers skip it for `no-store`).
 * - Assets are immutable for a year: a changed file gets a new name, and only index.html
 *   says which names are current.
 * - Assets go out as the Brotli or gzip copy the build wrote beside them, whichever the
 *   browser accepts (the original otherwise), with `Vary: Accept-Encoding`; nothing is
 *   compressed per request.
 * - A missing asset is a 404, never index.html or a redirect: a page still open from the
 *   previous deploy must see its chunk fail (and offer a reload), not parse HTML as code.
 */
export async function registerWebPages(app: FastifyInstance, webRoot: string): Promise<void> {
  const indexFile = path.join(webRoot, 'index.html');
  const built = existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, {
      root: path.join(webRoot, 'assets'),
      prefix: assetsPrefix,
      index: false,
      list: false,
      redirect: false,
      preCompressed: true,
      cacheControl: true,
      maxAge: '365d',
      immutable: true,
      // The compressed copies are reached through Accept-Encoding, not by their own names.
      allowedPath: (pathname) => !/\.(br|gz)$/.test(pathname),
    });
  }
  const notBuilt = (reply: FastifyReply) =>
    reply.status(503).header('retry-after', '5').type('text/plain').send('The web app is not built yet. Run `npm run build` (npm start does it for you).');
  const sendPage = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!built) return notBuilt(reply);
    // Read per request (1 KB): a build made while the server runs is served at once, and
    // while that build has emptied the folder the page is briefly unavailable, not an error.
    const page = await readFile(indexFile).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!page) return notBuilt(reply);
    const etag = `"${createHash('sha256').update(page).digest('base64url').slice(0, 27)}"`;
    reply.header('cache-control', 'no-cache').header('etag', etag);
    const knownTags = (request.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim());
    if (knownTags.includes(etag)) return reply.status(304).send();
    return reply.type('text/html; charset=utf-8').send(page);
  };
  for (const route of Object.values(pageRoutes)) app.get(route, sendPage);
  for (const flowPage of flowPageRoutes) for (const section of flowSections) app.get(flowSectionPath(flowPage, section), sendPage);
  app.get(webhookPagePattern, sendPage);
  app.get('/', async (_request, reply) => reply.redirect(pageRoutes.dashboard));
  app.setNotFoundHandler(async (request, reply) => {
    if (request.url.startsWith('/api/') || request.url.startsWith(assetsPrefix) || request.method !== 'GET') {
      return reply.status(404).send({ error: apiErrorCodes.not_found, message: requestMessages.notFound });
    }
    return reply.redirect(pageRoutes.dashboard);
  });
}
