import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Queryable } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { findSandboxAccountByToken, findSandboxProfilesByEmails, importSandboxProfile, recordSandboxKlaviyoEvent, type SandboxAccount, type SandboxProfileRecord } from './sandbox-queries.ts';
import { SAMPLE_CURRENCY, SAMPLE_SHOP_DOMAIN, sampleProductGid, sampleProducts, sampleProductUrl } from './sample-shop.ts';

/**
 * The three services as the sandbox plays them, each a Fastify plugin that follows the
 * HTTP contract of the real one (docs/product/service-contracts.md) as far as the engine
 * uses it, so the engine's own integration modules talk to them unchanged. Every request
 * names its owner by the sandbox token in the place the real service's key goes; an
 * unknown token gets the service's 401 and touches nothing
 * (docs/decisions/0026-sandbox.md).
 */
export interface SandboxServiceOptions {
  db: Queryable;
  clock: Clock;
}

async function ownerOf(db: Queryable, token: string | null): Promise<SandboxAccount | null> {
  if (!token || !token.startsWith('sbx_') || token.length > 200) return null;
  return findSandboxAccountByToken(db, token);
}

/** Klaviyo: profile import, event create, profile look-up by email, and the key check. */
export async function sandboxKlaviyo(app: FastifyInstance, options: SandboxServiceOptions): Promise<void> {
  const { db, clock } = options;
  const error = (reply: FastifyReply, status: number, code: string, detail: string) =>
    reply.status(status).type('application/vnd.api+json').send({ errors: [{ id: randomUUID(), code, title: detail, detail, source: { pointer: '/data' } }] });
  const owner = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization ?? '';
    const account = await ownerOf(db, header.startsWith('Klaviyo-API-Key ') ? header.slice('Klaviyo-API-Key '.length) : null);
    if (!account) {
      await error(reply, 401, 'not_authenticated', 'Missing or invalid private key.');
      return null;
    }
    return account;
  };
  // Shapes as Klaviyo's definition has them (klaviyo-api, revision 2026-07-15): every
  // resource carries its links, as the engine's readers may rely on them.
  const profileJson = (request: FastifyRequest, profile: SandboxProfileRecord) => ({
    type: 'profile',
    id: profile.id,
    attributes: { email: profile.email, first_name: profile.firstName, last_name: profile.lastName, properties: profile.properties, updated: profile.updatedAt.toISOString() },
    links: { self: `${prefixOf(request)}/api/profiles/${profile.id}/` },
  });
  const prefixOf = (request: FastifyRequest) => `http://${request.headers.host ?? '127.0.0.1'}${app.prefix}`;

  const profileImportSchema = z.object({
    data: z.object({
      type: z.literal('profile'),
      attributes: z.object({
        email: z.string().min(3).max(254),
        first_name: z.string().max(255).nullish(),
        last_name: z.string().max(255).nullish(),
        properties: z.record(z.string(), z.unknown()).optional(),
      }),
    }),
  });
  app.post('/api/profile-import', async (request, reply) => {
    const account = await owner(request, reply);
    if (!account) return reply;
    const parsed = profileImportSchema.safeParse(request.body);
    if (!parsed.success) return error(reply, 400, 'invalid', 'The profile import did not have the expected shape.');
    const { attributes } = parsed.data.data;
    const { profile, created } = await importSandboxProfile(
      db,
      account.userId,
      { email: attributes.email, firstName: attributes.first_name ?? null, lastName: attributes.last_name ?? null, properties: attributes.properties ?? {} },
      clock.now(),
    );
    return reply.status(created ? 201 : 200).type('application/vnd.api+json').send({ data: profileJson(request, profile) });
  });

  const eventSchema = z.object({
    data: z.object({
      type: z.literal('event'),
      attributes: z.object({
        properties: z.record(z.string(), z.unknown()).optional(),
        metric: z.object({ data: z.object({ attributes: z.object({ name: z.string().min(1).max(255) }) }) }),
        profile: z.object({ data: z.object({ attributes: z.object({ email: z.string().min(3).max(254), properties: z.record(z.string(), z.unknown()).optional() }) }) }),
        unique_id: z.string().max(255).optional(),
      }),
    }),
  });
  app.post('/api/events', async (request, reply) => {
    const account = await owner(request, reply);
    if (!account) return reply;
    const parsed = eventSchema.safeParse(request.body);
    if (!parsed.success) return error(reply, 400, 'invalid', 'The event did not have the expected shape.');
    const { attributes } = parsed.data.data;
    const email = attributes.profile.data.attributes.email;
    const now = clock.now();
    await recordSandboxKlaviyoEvent(
      db,
      account.userId,
      { uniqueId: attributes.unique_id ?? randomUUID(), metric: attributes.metric.data.attributes.name, email, properties: attributes.properties ?? {} },
      now,
    );
    await importSandboxProfile(db, account.userId, { email, firstName: null, lastName: null, properties: attributes.profile.data.attributes.properties ?? {} }, now);
    return reply.status(202).send();
  });

  app.get('/api/profiles', async (request, reply) => {
    const account = await owner(request, reply);
    if (!account) return reply;
    const filter = String((request.query as Record<string, unknown>).filter ?? '');
    const equals = /^equals\(email,"((?:[^"\\]|\\.)*)"\)$/.exec(filter);
    const any = /^any\(email,\[(.*)\]\)$/.exec(filter);
    if (!equals && !any) return error(reply, 400, 'invalid', `Invalid filter provided: ${filter.slice(0, 200)}`);
    const unquote = (text: string) => text.replace(/\\(.)/g, '$1');
    const emails = equals ? [unquote(equals[1]!)] : [...any![1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => unquote(match[1]!));
    if (emails.length > 100) return error(reply, 400, 'invalid', 'A filter may name at most 100 values.');
    const profiles = await findSandboxProfilesByEmails(db, account.userId, emails);
    return reply.type('application/vnd.api+json').send({ data: profiles.map((profile) => profileJson(request, profile)), links: { self: `${prefixOf(request)}/api/profiles/` } });
  });

  app.get('/api/accounts', async (request, reply) => {
    const account = await owner(request, reply);
    if (!account) return reply;
    const attributes = {
      test_account: true,
      contact_information: {
        default_sender_name: 'Flowsmith sample shop',
        default_sender_email: 'sandbox@example.com',
        website_url: null,
        organization_name: 'Flowsmith sample shop (sandbox)',
        street_address: { address1: null, address2: null, city: 'Sample City', region: null, country: null, zip: null },
      },
      industry: null,
      timezone: 'UTC',
      preferred_currency: SAMPLE_CURRENCY,
      public_api_key: 'SANDBX',
      locale: 'en-US',
    };
    return reply.type('application/vnd.api+json').send({
      data: [{ type: 'account', id: 'SANDBOX', attributes, links: { self: `${prefixOf(request)}/api/accounts/SANDBOX/` } }],
      links: { self: `${prefixOf(request)}/api/accounts/` },
    });
  });
}

const responsesRequestSchema = z.object({
  model: z.string().min(1).max(200),
  instructions: z.string().max(200_000).nullish(),
  input: z.union([z.string().max(500_000), z.array(z.unknown())]),
  text: z.object({ format: z.object({ type: z.string(), schema: z.object({ properties: z.record(z.string(), z.unknown()).optional() }).loose().optional() }).loose() }).loose().nullish(),
});

/** What a sample text shows of one part of the request: enough to read, never a whole book. */
const SHOWN_CHARS = 3_000;
function shown(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length - SHOWN_CHARS} more characters)` : text;
}

/**
 * The sample writer: OpenAI's Responses API without the AI. Its text says it is sample
 * text and shows what the real call would send (model, instructions, input), so the
 * owner sees the flow's prompts at work on the sample shop. It costs nothing (no tokens).
 */
export function sampleText(request: { model: string; instructions: string | null; input: string }, field?: string): string {
  return [
    sandboxMessages.sampleTextLabel,
    field ? `Field: ${field}` : null,
    `Model: ${request.model}`,
    `Instructions: ${shown(request.instructions ?? '(none)')}`,
    `Input: ${shown(request.input)}`,
  ]
    .filter((line) => line !== null)
    .join('\n');
}

export async function sandboxOpenAi(app: FastifyInstance, options: SandboxServiceOptions): Promise<void> {
  const { db } = options;
  // Every refusal of the sandbox's OpenAI is of OpenAI's type for a request it will not take.
  const error = (reply: FastifyReply, status: number, code: string, message: string) =>
    reply.status(status).send({ error: { message, type: 'invalid_request_error', param: null, code } });
  const owner = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization ?? '';
    const account = await ownerOf(db, header.startsWith('Bearer ') ? header.slice('Bearer '.length) : null);
    if (!account) {
      await error(reply, 401, 'invalid_api_key', 'Incorrect API key provided.');
      return null;
    }
    return account;
  };

  app.get('/models', async (request, reply) => {
    if (!(await owner(request, reply))) return reply;
    return { object: 'list', data: [{ id: 'gpt-5-mini', object: 'model', created: 1_754_524_800, owned_by: 'sandbox' }] };
  });

  // The sample writer writes nothing to flag: every text passes, one result per input.
  app.post('/moderations', async (request, reply) => {
    if (!(await owner(request, reply))) return reply;
    const parsed = moderationRequestSchema.safeParse(request.body);
    if (!parsed.success) return error(reply, 400, 'invalid_request', 'The request did not have the expected shape.');
    const inputs = Array.isArray(parsed.data.input) ? parsed.data.input : [parsed.data.input];
    const categories = Object.fromEntries(moderationCategories.map((category) => [category, false]));
    const scores = Object.fromEntries(moderationCategories.map((category) => [category, 0]));
    const applied = Object.fromEntries(moderationCategories.map((category) => [category, ['text']]));
    return {
      id: `modr-sandbox-${randomUUID()}`,
      model: parsed.data.model ?? 'omni-moderation-latest',
      results: inputs.map(() => ({ flagged: false, categories, category_scores: scores, category_applied_input_types: applied })),
    };
  });

  app.post('/responses', async (request, reply) => {
    if (!(await owner(request, reply))) return reply;
    const parsed = responsesRequestSchema.safeParse(request.body);
    if (!parsed.success) return error(reply, 400, 'invalid_request', 'The request did not have the expected shape.');
    const body = parsed.data;
    const input = typeof body.input === 'string' ? body.input : JSON.stringify(body.input);
    const call = { model: body.model, instructions: body.instructions ?? null, input };
    const fields = body.text?.format.type === 'json_schema' ? Object.keys(body.text.format.schema?.properties ?? {}) : [];
    const text = fields.length > 0 ? JSON.stringify(Object.fromEntries(fields.map((field) => [field, sampleText(call, field)]))) : sampleText(call);
    // Every field OpenAI's definition (the openai SDK's Response type) says an answer has.
    return {
      id: `resp_sandbox_${randomUUID().replaceAll('-', '')}`,
      object: 'response',
      created_at: Math.floor(options.clock.now().getTime() / 1000),
      status: 'completed',
      access_programs: null,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      metadata: {},
      model: body.model,
      service_tier: 'default',
      parallel_tool_calls: true,
      temperature: 1,
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      output: [{ type: 'message', id: `msg_${randomUUID().replaceAll('-', '')}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] }],
      usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
    };
  });
}

const moderationRequestSchema = z.object({ model: z.string().max(100).optional(), input: z.union([z.string().max(100_000), z.array(z.string().max(100_000)).max(100)]) });
/** The categories of OpenAI's Moderation type. */
const moderationCategories = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];

/** The words a product search asks for (`title:alpine* title:jacket*`), without Shopify's search syntax. */
function searchedWords(query: string): string[] {
  return query
    .replace(/\b\w+:/g, ' ')
    .replace(/[\\"'*()]/g, ' ')
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word && word !== 'and');
}

/** As Shopify's `title:word*` terms, all required: each word begins a word of the title. */
function titleMatches(title: string, words: readonly string[]): boolean {
  const titleWords = title.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return words.every((word) => titleWords.some((titleWord) => titleWord.startsWith(word)));
}

const graphqlRequestSchema = z.object({ query: z.string().max(10_000), variables: z.record(z.string(), z.unknown()).nullish() });

/** Shopify's Admin API (GraphQL) for the sample shop: the shop check and product look-ups. */
export async function sandboxShopify(app: FastifyInstance, options: SandboxServiceOptions): Promise<void> {
  const { db } = options;
  app.post('/admin/api/:version/graphql.json', async (request, reply) => {
    const token = request.headers['x-shopify-access-token'];
    if (!(await ownerOf(db, typeof token === 'string' ? token : null))) {
      return reply.status(401).send({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    }
    const parsed = graphqlRequestSchema.safeParse(request.body);
    if (!parsed.success) return reply.status(400).send({ errors: 'Parameter Missing or Invalid' });
    const { query, variables } = parsed.data;
    if (/\bproduct\s*\(/.test(query)) {
      const id = typeof variables?.id === 'string' ? variables.id : '';
      const product = sampleProducts.find((candidate) => sampleProductGid(candidate) === id);
      return {
        data: {
          product: product
            ? {
                title: product.title,
                description: product.description,
                onlineStoreUrl: sampleProductUrl(product),
                featuredImage: product.imageUrl ? { url: product.imageUrl } : null,
                priceRangeV2: { minVariantPrice: { amount: product.price, currencyCode: SAMPLE_CURRENCY } },
              }
            : null,
        },
      };
    }
    if (/\bproducts\s*\(/.test(query)) {
      const wanted = searchedWords(typeof variables?.query === 'string' ? variables.query : '');
      const titles = wanted.length > 0 ? sampleProducts.filter((product) => titleMatches(product.title, wanted)).map((product) => ({ title: product.title })) : [];
      return { data: { products: { nodes: titles.slice(0, 5) } } };
    }
    if (/\bshop\s*\{/.test(query)) return { data: { shop: { name: 'Flowsmith sample shop', myshopifyDomain: SAMPLE_SHOP_DOMAIN } } };
    return reply.status(200).send({ errors: [{ message: 'The sample shop answers product and shop queries only.' }] });
  });

  // The storefront's product recommendations, as Shopify's Ajax API answers them
  // (docs/decisions/0032-vendor-definitions.md): the sample shop's other products as related ones,
  // and a few set pairings as complementary ones. Public, as on a real storefront.
  const recommendationsQuery = z.object({
    product_id: z.string().regex(/^\d+$/),
    intent: z.enum(['related', 'complementary']).default('related'),
    limit: z.coerce.number().int().min(1).max(10).default(10),
  });
  app.get('/recommendations/products.json', async (request, reply) => {
    const parsed = recommendationsQuery.safeParse(request.query);
    if (!parsed.success) return reply.status(422).send({ status: 422, message: 'Invalid parameter error', description: 'A parameter is missing or invalid.' });
    const { product_id: productId, intent, limit } = parsed.data;
    const product = sampleProducts.find((candidate) => candidate.id === productId);
    if (!product) return reply.status(404).send({ status: 404, message: 'Product not found', description: 'No product with this id is published.' });
    const handles = intent === 'related' ? sampleProducts.filter((other) => other !== product).map((other) => other.handle) : (samplePairings[product.handle] ?? []);
    const recommended = handles.map((handle) => sampleProducts.find((other) => other.handle === handle)!).slice(0, limit);
    return {
      intent,
      products: recommended.map((other) => ({
        id: Number(other.id),
        title: other.title,
        handle: other.handle,
        description: `<p>${other.description}</p>`,
        price: Math.round(Number(other.price) * 100),
        available: true,
        featured_image: other.imageUrl,
        url: `${sampleProductUrl(other)}?pr_prod_strat=sandbox&pr_rec_pid=${other.id}&pr_ref_pid=${product.id}&pr_seq=uniform`,
      })),
    };
  });
}

/** The sample shop's "Pair it with" choices, by handle. */
const samplePairings: Record<string, string[]> = {
  'alpine-merino-beanie': ['basecamp-camping-mug', 'trailhead-insulated-bottle'],
  'trailhead-insulated-bottle': ['basecamp-camping-mug'],
  'summit-down-jacket': ['alpine-merino-beanie', 'trailhead-insulated-bottle'],
  'ridge-trail-running-shoes': ['trailhead-insulated-bottle', 'alpine-merino-beanie'],
  'basecamp-camping-mug': ['trailhead-insulated-bottle'],
};
