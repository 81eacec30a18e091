import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { delay, hang, startFakeServer, type Contract, type FakeReply, type RecordedRequest } from './fake-server.ts';
import { checkAdminAnswer, checkAdminRequest, requiredScopes } from '../contracts/shopify-definition.ts';

export const shopifyApiVersion = '2026-10';
const graphqlPath = `/admin/api/${shopifyApiVersion}/graphql.json`;

export type ShopifyEndpoint = 'graphql' | 'access-token';

/**
 * A forced failure, used once from the queue (`failNext`) or every time a `failWhen`
 * rule returns it. `on` limits it to one endpoint; without it, any request takes it.
 */
export type ShopifyFailure = { on?: ShopifyEndpoint } & (
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  | { kind: 'graphql-errors'; message?: string }
  | { kind: 'hang' }
);

export interface FakeShopifyProduct {
  title: string;
  description: string;
  onlineStoreUrl: string | null;
  featuredImage: { url: string } | null;
  /**
   * Answered as is. Every product has one in Shopify's schema (non-null), so a product
   * given without one is answered with a price of 0.0 in the shop's currency, as a
   * product without priced variants shows.
   */
  priceRangeV2?: { minVariantPrice: { amount: string; currencyCode: string } };
}

export interface FakeWebhookSubscription {
  id: string;
  topic: string;
  uri: string;
  includeFields: string[];
  format: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * What a token is granted unless a test says otherwise: every scope Flowsmith asks owners
 * for (src/shared/shopify-connect/shopify-scopes.ts), so a test that is not about scopes
 * is not refused for one.
 */
export const defaultGrantedScopes = ['read_orders', 'read_products'];

export interface FakeShopifyOptions {
  shopDomain?: string;
  shopName?: string;
  /** Non-expiring Admin API tokens the fake accepts (default: ['shpat_test_valid']). */
  accessTokens?: string[];
  /** The access scopes each token is granted (default defaultGrantedScopes); tokens of the grant get the app's (`appScopes`). */
  tokenScopes?: Record<string, string[]>;
  /** The scopes the Dev Dashboard app was given, which its client-credentials tokens carry (default defaultGrantedScopes). */
  appScopes?: string[];
  /** The Dev Dashboard app's credentials for the client-credentials grant. */
  clientId?: string;
  clientSecret?: string;
  /** What a wrong client id or secret gets (default 400). */
  invalidClientStatus?: 400 | 401;
  /** Lifetime of tokens obtained by the grant (default 86399 s). */
  tokenLifetimeSeconds?: number;
  /** Products by numeric id or gid. */
  products?: Record<string, FakeShopifyProduct>;
  latencyMs?: number;
  /** Time in milliseconds, for token expiry (default Date.now). */
  now?: () => number;
}

const productGid = (id: string) => (id.startsWith('gid://') ? id : `gid://shopify/Product/${id}`);

/** A product as the Admin API answers it: its gid, and the price a product without one shows. */
const productNode = (gid: string, product: FakeShopifyProduct) => ({ id: gid, priceRangeV2: { minVariantPrice: { amount: '0.0', currencyCode: 'USD' } }, ...product });

/** A title's words as Shopify's search compares them: any case, accents folded, split on punctuation. */
const searchWords = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

interface TitleTerm {
  /** The value's words, matched as consecutive words of the title. */
  words: string[];
  /** Ended in an unescaped `*`: the last word matches the start of a title's word. */
  prefix: boolean;
}

/**
 * The `products(query:)` terms the fake answers, in Shopify's search syntax
 * (https://shopify.dev/docs/api/usage/search-syntax): `title:` terms, each a value
 * quoted ('…' or "…", a phrase) or bare, with backslash escapes and a trailing `*` for a
 * prefix, joined by whitespace or AND. Anything else (another field, OR, NOT, groups) is
 * a string saying so: the fake cannot answer it as Shopify would.
 */
function parseTitleSearch(search: string): TitleTerm[] | string {
  const terms: TitleTerm[] = [];
  let at = 0;
  while (at < search.length) {
    if (/\s/.test(search[at]!)) {
      at += 1;
      continue;
    }
    if (/^AND\s/.test(search.slice(at))) {
      at += 3;
      continue;
    }
    const field = /^([A-Za-z_][\w.]*):/.exec(search.slice(at));
    if (field?.[1] !== 'title') return `the fake Shopify searches products by \`title:\` terms only, not "${search.slice(at)}"`;
    at += field[0].length;
    let value = '';
    let prefix = false;
    const quote = search[at] === '"' || search[at] === "'" ? search[at] : undefined;
    if (quote) at += 1;
    for (; at < search.length; at++) {
      const char = search[at]!;
      if (char === '\\') {
        at += 1;
        value += search[at] ?? '';
      } else if (quote ? char === quote : /\s/.test(char)) {
        if (quote) at += 1;
        break;
      } else if (!quote && char === '*' && (at + 1 === search.length || /\s/.test(search[at + 1]!))) {
        prefix = true;
      } else if (!quote && '():'.includes(char)) {
        return `"${char}" unescaped in a value is search syntax the fake Shopify does not answer`;
      } else {
        value += char;
      }
    }
    terms.push({ words: searchWords(value), prefix });
  }
  return terms;
}

function titleHolds(title: string, term: TitleTerm): boolean {
  const words = searchWords(title);
  if (term.words.length === 0) return term.prefix;
  return words.some((_, start) =>
    term.words.every((word, offset) => {
      const titleWord = words[start + offset];
      const last = offset === term.words.length - 1;
      return titleWord !== undefined && (last && term.prefix ? titleWord.startsWith(word) : titleWord === word);
    }),
  );
}

/** A GraphQL argument given inline (string, enum, number) or as a variable. */
function argument(query: string, variables: Record<string, unknown>, name: string): unknown {
  // The lookbehind skips variable declarations such as `($id: ID!)`.
  const match = new RegExp(`(?<![$\\w])${name}\\s*:\\s*(?:\\$(\\w+)|"((?:[^"\\\\]|\\\\.)*)"|([A-Za-z0-9_]+))`).exec(query);
  if (!match) return undefined;
  if (match[1] !== undefined) return variables[match[1]];
  if (match[2] !== undefined) return JSON.parse(`"${match[2]}"`);
  return match[3];
}

/** The webhookSubscription input, given as one variable or inline fields. */
function subscriptionInput(query: string, variables: Record<string, unknown>): { uri?: string; includeFields?: string[]; format?: string } {
  const whole = argument(query, variables, 'webhookSubscription');
  if (whole && typeof whole === 'object') {
    const input = whole as Record<string, unknown>;
    return {
      uri: (input.uri ?? input.callbackUrl) as string | undefined,
      includeFields: input.includeFields as string[] | undefined,
      format: input.format as string | undefined,
    };
  }
  const fields = /\bincludeFields\s*:\s*(?:\$(\w+)|\[([^\]]*)\])/.exec(query);
  const includeFields = fields?.[1] !== undefined ? (variables[fields[1]] as string[]) : fields?.[2] !== undefined ? [...fields[2].matchAll(/"([^"]*)"/g)].map((m) => m[1]!) : undefined;
  return {
    uri: (argument(query, variables, 'uri') ?? argument(query, variables, 'callbackUrl')) as string | undefined,
    includeFields,
    format: argument(query, variables, 'format') as string | undefined,
  };
}

const tokenRequestFields = ['client_id', 'client_secret', 'grant_type'];

/**
 * The client-credentials request as Shopify documents it: a form (or JSON) body with
 * exactly grant_type, client_id and client_secret. Anything else is Shopify's 400
 * invalid_request; a wrong id or secret is not a shape problem (the handler answers it).
 */
function checkTokenRequest(request: RecordedRequest): { reply: FakeReply; problems: string[] } | undefined {
  const contentType = String(request.headers['content-type'] ?? '');
  const problems: string[] = [];
  if (!/application\/(?:x-www-form-urlencoded|json)/.test(contentType)) problems.push(`content-type ${contentType || 'missing'}: a form or JSON body is expected`);
  const body = request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
  const fields = Object.keys(body).sort();
  if (fields.join() !== tokenRequestFields.join()) problems.push(`the body has ${fields.join(', ') || 'nothing'}; Shopify takes exactly ${tokenRequestFields.join(', ')}`);
  if (Object.values(body).some((value) => typeof value !== 'string' || value === '')) problems.push('every field is a non-empty string');
  if (problems.length === 0) return undefined;
  return { problems, reply: { status: 400, body: { error: 'invalid_request', error_description: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.' } } };
}

/** A local Shopify store: Admin GraphQL (shop, product, products by title, webhook subscriptions) and the client-credentials grant. */
export async function startFakeShopify(options: FakeShopifyOptions = {}) {
  const shopDomain = options.shopDomain ?? 'test-shop.myshopify.com';
  const now = options.now ?? Date.now;
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 86_399;
  const accessTokens = new Set(options.accessTokens ?? ['shpat_test_valid']);
  const tokenScopes = new Map<string, string[]>(Object.entries(options.tokenScopes ?? {}));
  let appScopes = options.appScopes ?? defaultGrantedScopes;
  const scopesOf = (token: string): string[] => tokenScopes.get(token) ?? (issuedTokens.has(token) ? appScopes : defaultGrantedScopes);
  /** Tokens obtained by the grant, with their expiry in ms. */
  const issuedTokens = new Map<string, number>();
  const products = new Map<string, FakeShopifyProduct>(Object.entries(options.products ?? {}).map(([id, product]) => [productGid(id), product]));
  const webhookSubscriptions = new Map<string, FakeWebhookSubscription>();
  const queue: ShopifyFailure[] = [];
  const rules: Array<(request: RecordedRequest) => ShopifyFailure | undefined> = [];
  const shopDomainsRequested: string[] = [];
  const state = {
    clientId: options.clientId ?? 'fake-client-id',
    clientSecret: options.clientSecret ?? 'fake-client-secret',
    latencyMs: options.latencyMs ?? 0,
    nextSubscriptionId: 1,
  };
  const counts: Record<ShopifyEndpoint, number> = { graphql: 0, 'access-token': 0 };
  /** GraphQL root fields answered, e.g. counts of 'shop', 'product', 'webhookSubscriptionCreate'. */
  const operationCounts: Record<string, number> = {};

  const appliesTo = (failure: ShopifyFailure, endpoint: ShopifyEndpoint) => failure.on === undefined || failure.on === endpoint;

  function failureFor(request: RecordedRequest, endpoint: ShopifyEndpoint): ShopifyFailure | undefined {
    for (const rule of rules) {
      const failure = rule(request);
      if (failure && appliesTo(failure, endpoint)) return failure;
    }
    const index = queue.findIndex((failure) => appliesTo(failure, endpoint));
    return index === -1 ? undefined : queue.splice(index, 1)[0];
  }

  function failureReply(failure: ShopifyFailure): FakeReply | typeof hang {
    switch (failure.kind) {
      case 'hang':
        return hang;
      case 'graphql-errors':
        return { status: 200, body: { errors: [{ message: failure.message ?? 'Internal error. Looks like something went wrong on our end.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } };
      case 'status': {
        const headers: Record<string, string> = failure.retryAfterSeconds !== undefined ? { 'Retry-After': String(failure.retryAfterSeconds) } : {};
        const errors = failure.status === 429 ? 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' : 'Internal Server Error';
        return { status: failure.status, headers, body: { errors } };
      }
    }
  }

  function tokenIsValid(token: string | undefined): boolean {
    if (!token) return false;
    if (accessTokens.has(token)) return true;
    const expiresAt = issuedTokens.get(token);
    return expiresAt !== undefined && expiresAt > now();
  }

  function handleAccessToken(request: RecordedRequest): FakeReply {
    const body = (request.body && typeof request.body === 'object' ? request.body : Object.fromEntries(request.query)) as Record<string, string>;
    if (body.grant_type !== 'client_credentials') {
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported.' } };
    }
    if (body.client_id !== state.clientId || body.client_secret !== state.clientSecret) {
      return {
        status: options.invalidClientStatus ?? 400,
        body: { error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' },
      };
    }
    const token = `shpat_cc_${randomBytes(16).toString('hex')}`;
    issuedTokens.set(token, now() + tokenLifetimeSeconds * 1000);
    tokenScopes.set(token, appScopes);
    return { status: 200, body: { access_token: token, scope: appScopes.join(','), expires_in: tokenLifetimeSeconds } };
  }

  const subscriptionNode = (subscription: FakeWebhookSubscription) => ({ ...subscription, callbackUrl: subscription.uri, endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: subscription.uri } });

  function handleGraphql(request: RecordedRequest): FakeReply {
    const { query, variables = {} } = (request.body ?? {}) as { query?: string; variables?: Record<string, unknown> };
    if (typeof query !== 'string') return { status: 400, body: { errors: { query: 'Required parameter missing or invalid' } } };
    const data: Record<string, unknown> = {};
    const answered = (root: string) => {
      operationCounts[root] = (operationCounts[root] ?? 0) + 1;
    };
    const stamp = new Date(now()).toISOString();

    // WebhookSubscriptionInput.uri takes an HTTPS URL (or a Pub/Sub or EventBridge address,
    // which Flowsmith never sends): an http:// address is refused like an invalid one.
    const deliverable = (uri: string) => /^https:\/\//i.test(uri);
    const addressRefusal = (uri: string | undefined) => (uri && /^http:\/\//i.test(uri) ? 'Address protocol http:// is not supported' : 'Address is invalid');

    if (/\bwebhookSubscriptionCreate\b/.test(query)) {
      answered('webhookSubscriptionCreate');
      const topic = argument(query, variables, 'topic') as string | undefined;
      const input = subscriptionInput(query, variables);
      const duplicate = [...webhookSubscriptions.values()].some((s) => s.topic === topic && s.uri === input.uri);
      if (!topic || !input.uri || duplicate || !deliverable(input.uri)) {
        data.webhookSubscriptionCreate = {
          webhookSubscription: null,
          userErrors: [{ field: ['webhookSubscription', 'callbackUrl'], message: duplicate ? 'Address for this topic has already been taken' : addressRefusal(input.uri) }],
        };
      } else {
        const subscription: FakeWebhookSubscription = {
          id: `gid://shopify/WebhookSubscription/${state.nextSubscriptionId++}`,
          topic,
          uri: input.uri,
          includeFields: input.includeFields ?? [],
          format: input.format ?? 'JSON',
          createdAt: stamp,
          updatedAt: stamp,
        };
        webhookSubscriptions.set(subscription.id, subscription);
        data.webhookSubscriptionCreate = { webhookSubscription: subscriptionNode(subscription), userErrors: [] };
      }
    } else if (/\bwebhookSubscriptionUpdate\b/.test(query)) {
      answered('webhookSubscriptionUpdate');
      const subscription = webhookSubscriptions.get(String(argument(query, variables, 'id')));
      if (!subscription) {
        data.webhookSubscriptionUpdate = { webhookSubscription: null, userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }] };
      } else {
        const input = subscriptionInput(query, variables);
        if (input.uri !== undefined && !deliverable(input.uri)) {
          data.webhookSubscriptionUpdate = { webhookSubscription: null, userErrors: [{ field: ['webhookSubscription', 'callbackUrl'], message: addressRefusal(input.uri) }] };
        } else {
          if (input.uri !== undefined) subscription.uri = input.uri;
          if (input.includeFields !== undefined) subscription.includeFields = input.includeFields;
          if (input.format !== undefined) subscription.format = input.format;
          subscription.updatedAt = stamp;
          data.webhookSubscriptionUpdate = { webhookSubscription: subscriptionNode(subscription), userErrors: [] };
        }
      }
    } else if (/\bwebhookSubscriptionDelete\b/.test(query)) {
      answered('webhookSubscriptionDelete');
      const id = String(argument(query, variables, 'id'));
      data.webhookSubscriptionDelete = webhookSubscriptions.delete(id)
        ? { deletedWebhookSubscriptionId: id, userErrors: [] }
        : { deletedWebhookSubscriptionId: null, userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }] };
    } else {
      if (/\bwebhookSubscriptions\b/.test(query)) {
        answered('webhookSubscriptions');
        const nodes = [...webhookSubscriptions.values()].map(subscriptionNode);
        data.webhookSubscriptions = {
          nodes,
          edges: nodes.map((node) => ({ cursor: node.id, node })),
          pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        };
      }
      if (/\bshop\s*\{/.test(query)) {
        answered('shop');
        data.shop = { id: 'gid://shopify/Shop/1', name: options.shopName ?? 'Fake Shop', myshopifyDomain: shopDomain, primaryDomain: { host: shopDomain, url: `https://${shopDomain}` } };
      }
      if (/\bcurrentAppInstallation\b/.test(query)) {
        answered('currentAppInstallation');
        const token = String(request.headers['x-shopify-access-token']);
        data.currentAppInstallation = { id: 'gid://shopify/AppInstallation/1', accessScopes: scopesOf(token).map((handle) => ({ handle, description: `The ${handle} scope` })) };
      }
      if (/\bproduct\s*\(/.test(query)) {
        answered('product');
        const id = argument(query, variables, 'id');
        const product = typeof id === 'string' ? products.get(productGid(id)) : undefined;
        data.product = product ? productNode(productGid(String(id)), product) : null;
      }
      if (/\bproducts\s*\(/.test(query)) {
        answered('products');
        const first = Number(argument(query, variables, 'first') ?? Number.NaN);
        if (!Number.isInteger(first)) return { status: 200, body: { errors: [{ message: 'you must provide one of first or last', extensions: { code: 'BAD_REQUEST' } }] } };
        const search = argument(query, variables, 'query');
        const terms = typeof search === 'string' ? parseTitleSearch(search) : [];
        if (typeof terms === 'string') return { status: 200, body: { errors: [{ message: terms, extensions: { code: 'undefinedField' } }] } };
        // In the order they were added; Shopify's RELEVANCE puts the closest titles first.
        const matching = [...products].filter(([, product]) => terms.every((term) => titleHolds(product.title, term)));
        const nodes = matching.slice(0, first).map(([gid, product]) => productNode(gid, product));
        data.products = {
          nodes,
          edges: nodes.map((node) => ({ cursor: node.id, node })),
          pageInfo: { hasNextPage: matching.length > first, hasPreviousPage: false, startCursor: nodes[0]?.id ?? null, endCursor: nodes.at(-1)?.id ?? null },
        };
      }
    }
    if (Object.keys(data).length === 0) {
      return { status: 200, body: { errors: [{ message: 'Field is not supported by the fake Shopify.', extensions: { code: 'undefinedField' } }] } };
    }
    return {
      status: 200,
      body: { data, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1999, restoreRate: 100 } } } },
    };
  }

  /**
   * Shopify's definitions held to every request and answer (test/contracts): the GraphQL
   * document and variables against the 2026-10 Admin schema, the token's access scopes
   * against what each field and webhook topic documents, the client-credentials request's
   * shape, and the fake's own answers against the query's selection.
   */
  const contract: Contract = {
    checkRequest(request) {
      if (request.method === 'POST' && request.path === '/admin/oauth/access_token') return checkTokenRequest(request);
      if (request.method !== 'POST' || request.path !== graphqlPath) return undefined;
      const token = request.headers['x-shopify-access-token'];
      // Shopify answers an unknown token with 401 before it reads the query.
      if (typeof token !== 'string' || !tokenIsValid(token)) return undefined;
      const checked = checkAdminRequest(shopifyApiVersion, request.body);
      if (!checked.ok) {
        return { problems: checked.problems, reply: { status: 200, body: { errors: checked.problems.map((message) => ({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) } } };
      }
      const variables = ((request.body as { variables?: Record<string, unknown> }).variables ?? {}) as Record<string, unknown>;
      const granted = new Set(scopesOf(token));
      const denied = requiredScopes(shopifyApiVersion, checked.document!, variables).filter((requirement) => !requirement.anyOf.some((scope) => granted.has(scope)));
      if (denied.length === 0) return undefined;
      const requiredAccess = (anyOf: string[]) => `${anyOf.map((scope) => `\`${scope}\``).join(' or ')} access scope.`;
      return {
        problems: denied.map((requirement) => `${requirement.what} needs ${requirement.anyOf.join(' or ')}; the token has ${[...granted].join(', ') || 'none'}`),
        reply: {
          status: 200,
          body: {
            errors: denied.map((requirement) => ({
              message: `Access denied for ${requirement.what} field. Required access: ${requiredAccess(requirement.anyOf)}`,
              path: requirement.path,
              extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes', requiredAccess: requiredAccess(requirement.anyOf) },
            })),
            data: Object.fromEntries(denied.map((requirement) => [requirement.path[0], null])),
          },
        },
      };
    },
    checkReply(request, reply) {
      if (request.path === '/admin/oauth/access_token') {
        if (reply.status !== 200) return [];
        const body = reply.body as Record<string, unknown>;
        return typeof body?.access_token === 'string' && typeof body.scope === 'string' && typeof body.expires_in === 'number' ? [] : ['a token answer has access_token, scope and expires_in'];
      }
      if (request.path !== graphqlPath || reply.status !== 200) return [];
      const data = (reply.body as { data?: unknown } | undefined)?.data;
      if (data === undefined) return [];
      const checked = checkAdminRequest(shopifyApiVersion, request.body);
      if (!checked.ok) return [];
      return checkAdminAnswer(shopifyApiVersion, checked.document!, (request.body as { variables?: unknown }).variables, data).problems;
    },
  };

  const server = await startFakeServer(async (request) => {
    if (state.latencyMs > 0) await delay(state.latencyMs);
    const domain = request.headers['x-shopify-shop-domain'];
    if (typeof domain === 'string') shopDomainsRequested.push(domain);
    const endpoint: ShopifyEndpoint | undefined =
      request.method === 'POST' && request.path === graphqlPath
        ? 'graphql'
        : request.method === 'POST' && request.path === '/admin/oauth/access_token'
          ? 'access-token'
          : undefined;
    if (!endpoint) return { status: 404, body: { errors: 'Not Found' } };
    counts[endpoint] += 1;
    const failure = failureFor(request, endpoint);
    if (failure) return failureReply(failure);
    if (endpoint === 'access-token') return handleAccessToken(request);
    const token = request.headers['x-shopify-access-token'];
    if (!tokenIsValid(typeof token === 'string' ? token : undefined)) {
      return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    }
    return handleGraphql(request);
  }, contract);

  return {
    /** The app's SHOPIFY_BASE_URL (it stands in for https://{shop}). */
    baseUrl: server.baseUrl,
    shopDomain,
    requests: server.requests,
    /** Non-expiring Admin API tokens accepted. */
    accessTokens,
    /** Tokens handed out by the client-credentials grant, with their expiry (ms). */
    issuedTokens,
    products,
    webhookSubscriptions,
    /** Shop domains the app named in an X-Shopify-Shop-Domain header, if it sends one. */
    shopDomainsRequested,
    get clientId() {
      return state.clientId;
    },
    get clientSecret() {
      return state.clientSecret;
    },
    /** Rotates the app's client secret, as the owner would in the Dev Dashboard. */
    setClientSecret(secret: string) {
      state.clientSecret = secret;
    },
    /** Grants `token` these access scopes from now on (a fixed token, or one the grant issued). */
    setTokenScopes(token: string, scopes: string[]) {
      tokenScopes.set(token, scopes);
    },
    /** Changes the Dev Dashboard app's scopes: tokens obtained from now on carry them. */
    setAppScopes(scopes: string[]) {
      appScopes = scopes;
    },
    /** What the definition refused so far, taken (for tests that meant to send it). */
    takeViolations: server.takeViolations,
    /** Makes every token obtained so far expire now. */
    expireIssuedTokens() {
      for (const token of issuedTokens.keys()) issuedTokens.set(token, 0);
    },
    setProduct(id: string, product: FakeShopifyProduct) {
      products.set(productGid(id), product);
    },
    setLatency(milliseconds: number) {
      state.latencyMs = milliseconds;
    },
    failNext(...failures: ShopifyFailure[]) {
      queue.push(...failures);
    },
    failWhen(rule: (request: RecordedRequest) => ShopifyFailure | undefined) {
      rules.push(rule);
    },
    clearFailures() {
      queue.length = 0;
      rules.length = 0;
    },
    /** Requests received per endpoint (including failed ones). */
    counts,
    operationCounts,
    close: server.close,
  };
}
export type FakeShopify = Awaited<ReturnType<typeof startFakeShopify>>;

/** The X-Shopify-Hmac-Sha256 value for a raw body: base64 HMAC-SHA256 keyed with the secret. */
export function signShopifyWebhook(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

/** An order (orders/create) of one Trail Shoe, product `productId`, for `email`: what the product look-ups are tested with. */
export function trailShoeOrder(email: string, productId: number) {
  return {
    id: Math.floor(Math.random() * 1e9),
    token: `tok_${randomUUID()}`,
    email,
    customer: { email, first_name: 'Kim', last_name: 'Buyer' },
    line_items: [{ title: 'Trail Shoe', price: '89.50', quantity: 1, product_id: productId, variant_id: productId * 100 }],
    total_price: '89.50',
    currency: 'USD',
    order_status_url: 'https://shop.example/orders/1',
    created_at: new Date().toISOString(),
  };
}

/**
 * Posts a webhook as Shopify would, with every X-Shopify-* header of INTEGRATIONS.md.
 * `payload` is sent as is when a string, else as JSON; `extraHeaders` override the
 * defaults (same event id to test de-duplication, a wrong HMAC …).
 */
export async function sendShopifyWebhook(
  url: string,
  topic: string,
  payload: unknown,
  secret: string,
  extraHeaders: Record<string, string> = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const headers = new Headers({
    'Content-Type': 'application/json',
    'X-Shopify-Topic': topic,
    'X-Shopify-Hmac-Sha256': signShopifyWebhook(body, secret),
    'X-Shopify-Shop-Domain': 'test-shop.myshopify.com',
    'X-Shopify-API-Version': shopifyApiVersion,
    'X-Shopify-Webhook-Id': randomUUID(),
    'X-Shopify-Event-Id': randomUUID(),
    'X-Shopify-Triggered-At': new Date().toISOString(),
  });
  // Headers are case-insensitive: set() replaces a default whatever the caller's casing.
  for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text(), headers: Object.fromEntries(headers) };
}

/**
 * A checkout as Shopify's checkouts/* webhooks carry it (INTEGRATIONS.md), with fresh
 * ids and tokens; `overrides` replace fields (updated_at, cart_token, line_items …).
 */
export function shopifyCheckoutPayload(email: string, overrides: Record<string, unknown> = {}) {
  return {
    id: Math.floor(Math.random() * 1e12),
    token: `chk_${randomUUID()}`,
    cart_token: `cart_${randomUUID()}`,
    email,
    customer: { email, first_name: 'Kim', last_name: 'Buyer' },
    line_items: [{ title: 'Trail Shoe', price: '89.50', quantity: 1, product_id: 42, variant_id: 4201 }],
    total_price: '89.50',
    currency: 'USD',
    abandoned_checkout_url: `https://shop.example/checkouts/${randomUUID()}/recover`,
    completed_at: null as string | null,
    updated_at: new Date().toISOString(),
    ...overrides,
  };
}
