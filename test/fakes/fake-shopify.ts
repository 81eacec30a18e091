import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { delay, hang, startFakeServer, type Contract, type FakeReply, type RecordedRequest } from './fake-server.ts';
import { adminSchema, checkAdminAnswer, checkAdminRequest, ensureAdminSchema, requiredScopes } from '../contracts/shopify-definition.ts';
import { checkShopifyTokenAnswer, checkShopifyTokenRequest, shopifyAuthorizeProblems, shopifyAuthorizeRefusal, shopifyGrantOf } from '../contracts/oauth-contract.ts';
import { consentPage, messagePage, refusalPage } from './oauth-consent-page.ts';
import { z } from 'zod';

export const shopifyApiVersion = '2026-10';
const graphqlPath = `/admin/api/${shopifyApiVersion}/graphql.json`;

export type ShopifyEndpoint = 'graphql' | 'access-token' | 'recommendations';

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

/**
 * A product of the storefront, as the Ajax API's product recommendations show it
 * (`setRecommendations`, `setStorefrontProduct`). Unless the Admin API already has a
 * product of that id, it gets one too (same title, description, price, and an
 * onlineStoreUrl while published), so a recommended product is also found by `product(id:)`.
 */
export interface FakeStorefrontProduct {
  /** The numeric product id (a string keeps ids past 2^53 exact: they are answered as JSON numbers, digit for digit). */
  id: number | string;
  title: string;
  /** Default: the title in lower case, words joined by "-". */
  handle?: string;
  /** In cents of the shop's currency, as the Ajax API states prices. */
  price: number;
  compareAtPrice?: number | null;
  /** Any variant in stock (default true). */
  available?: boolean;
  /** Published to the online store (default true); an unpublished product is never answered. */
  published?: boolean;
  /** As the storefront gives it, protocol-relative ("//cdn.shopify.com/s/files/…"); null or absent: no image. */
  image?: string | null;
  /** HTML (default "<p>{title}</p>"). */
  description?: string;
  vendor?: string;
  /**
   * Merged into the product's JSON as is, to answer what a client must survive (a price
   * given as text, a missing title); the answer is then sent off contract.
   */
  raw?: Record<string, unknown>;
}

/** Storefront recommendations set up front (the option `recommendations`), as `setRecommendations` sets them. */
export interface FakeRecommendationList {
  productId: number | string;
  intent: FakeRecommendationIntent;
  products: FakeStorefrontProduct[];
}

export type FakeRecommendationIntent = 'related' | 'complementary';

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
  /**
   * Time in milliseconds (default Date.now): token and code expiry, and the `timestamp` of
   * the OAuth callback and of the app's webhooks.
   */
  now?: () => number;
  /**
   * The deployment's own Shopify app (a public app, SHOPIFY_API_KEY and SHOPIFY_API_SECRET):
   * turns on the authorization code grant at /admin/oauth/authorize (the install page) and
   * /admin/oauth/access_token, its tokens on the Admin API, and the app's webhooks
   * (`uninstall`, `updateScopes`), signed with its client secret. The stand-in serves one
   * shop (`shopDomain`) and one installation of this app on it.
   */
  app?: FakeShopifyApp;
  /** Lifetime of an expiring offline access token (default 3600 s, Shopify's 60 minutes). */
  accessTokenLifetimeSeconds?: number;
  /** Lifetime of a refresh token (default 90 days, Shopify's "normal 90-day lifetime"). */
  refreshTokenLifetimeSeconds?: number;
  /**
   * Where the app's webhooks (app/uninstalled, app/scopes_update) are actually POSTed, from
   * a subscription's `uri` (default: the uri itself). Shopify registers https addresses
   * only, so a test maps the public address the app registered onto its local server.
   */
  webhookDeliveryUrl?: (subscriptionUri: string) => string;
  /** The storefront's product recommendations (GET /{locale}/recommendations/products.json); none by default. */
  recommendations?: FakeRecommendationList[];
}

/** The deployment's public Shopify app, as its configuration in the Dev Dashboard has it. */
export interface FakeShopifyApp {
  clientId: string;
  clientSecret: string;
  /** Shown on the install page (default "Flowsmith"). */
  name?: string;
  /** When given, the only redirect_uri values the authorize request may name ("Allowed redirection URL(s)"). */
  redirectUris?: string[];
}

/** A request to /admin/oauth/access_token as the stand-in received it (`tokenRequests`). */
export interface ShopifyTokenRequest {
  /** 'authorization_code', 'refresh_token', 'client_credentials', or what else was sent. */
  grantType: string;
  code?: string;
  /** The refresh token the request renewed with. */
  refreshToken?: string;
  /** '1' asked for an expiring offline token. */
  expiring?: string;
  receivedAt: number;
  /** What was answered; null while unanswered (a hang); for a lost answer, the status the answer would have had. */
  readonly status: number | null;
  /** The request was carried out but its answer was never delivered (`loseNextTokenAnswer`). */
  lost: boolean;
}

/** One delivery of an app webhook (`uninstall`, `updateScopes`). */
export interface ShopifyAppWebhookDelivery {
  topic: string;
  /** The subscription's uri, and where it was actually posted (`webhookDeliveryUrl`). */
  uri: string;
  url: string;
  webhookId: string;
  body: string;
  /** The receiver's HTTP status; null when it could not be reached or did not answer within Shopify's 5 seconds. */
  status: number | null;
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

/**
 * The storefront's product recommendations, Shopify's Ajax API
 * (docs/decisions/0032-vendor-definitions.md, "Shopify's product recommendations"):
 * `GET /{locale}/recommendations/products.json`, the locale prefix optional.
 */
const recommendationsPathPattern = /^(?:\/[a-z]{2,3}(?:-[a-z0-9]{2,4})?)?\/recommendations\/products\.json$/i;
export const isRecommendationsPath = (path: string) => recommendationsPathPattern.test(path);

/** The storefront's refusal body: `{ status, message, description }`. */
const storefrontRefusal = (status: number, message: string, description: string): FakeReply => ({ status, body: { status, message, description } });

/**
 * What the Ajax API refuses with 422 "Invalid parameter error": product_id missing or not
 * a product id, limit outside 1–10 (or not a number), an intent other than related or
 * complementary. Empty when the query is fine.
 */
export function recommendationQueryProblems(query: URLSearchParams): string[] {
  const problems: string[] = [];
  const productId = query.get('product_id');
  if (productId === null || productId === '') problems.push('product_id is required');
  else if (!/^\d+$/.test(productId)) problems.push(`product_id "${productId}" is not a product id`);
  const limit = query.get('limit');
  if (limit !== null && (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 10)) problems.push(`limit "${limit}" is not between 1 and 10`);
  const intent = query.get('intent');
  if (intent !== null && intent !== 'related' && intent !== 'complementary') problems.push(`intent "${intent}" is neither related nor complementary`);
  return problems;
}

/** JSON with the `id` numbers kept as their exact digits (as strings). */
const parseExactIds = (text: string): unknown => JSON.parse(text, (key, value: unknown, context?: { source?: string }) => (key === 'id' && typeof value === 'number' && context?.source ? context.source : value));

const exactId = z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]);
const cents = z.number().int().nonnegative();
/** A storefront product as the Ajax API's product JSON has it (the fields of Shopify's example answer). */
const storefrontProductAnswer = z.looseObject({
  id: exactId,
  title: z.string(),
  handle: z.string(),
  description: z.string(),
  published_at: z.string(),
  created_at: z.string(),
  vendor: z.string(),
  type: z.string(),
  tags: z.array(z.string()),
  price: cents,
  price_min: cents,
  price_max: cents,
  available: z.boolean(),
  price_varies: z.boolean(),
  compare_at_price: cents.nullable(),
  compare_at_price_min: cents,
  compare_at_price_max: cents,
  compare_at_price_varies: z.boolean(),
  variants: z.array(z.looseObject({ id: exactId, title: z.string(), available: z.boolean(), price: cents, compare_at_price: cents.nullable() })),
  images: z.array(z.string()),
  featured_image: z.string().nullable(),
  options: z.array(z.unknown()),
  url: z.string().regex(/^\/products\/[^/?#]+\?/),
  media: z.array(z.unknown()),
});
const recommendationsAnswer = z.strictObject({ intent: z.enum(['related', 'complementary']), products: z.array(storefrontProductAnswer) });

/** The Ajax API's answer checked against its definition and the request: the intent asked, at most `limit`, published products only. */
function recommendationsAnswerProblems(request: RecordedRequest, reply: FakeReply): string[] {
  if (reply.status !== 200) return [];
  let body: unknown;
  try {
    body = typeof reply.body === 'string' ? parseExactIds(reply.body) : reply.body;
  } catch {
    return ['the recommendations answer is not JSON'];
  }
  const parsed = recommendationsAnswer.safeParse(body);
  if (!parsed.success) return parsed.error.issues.map((issue) => `recommendations answer at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const problems: string[] = [];
  const intent = request.query.get('intent') ?? 'related';
  if (parsed.data.intent !== intent) problems.push(`answered intent ${parsed.data.intent} to a request for ${intent}`);
  const limit = Number(request.query.get('limit') ?? 10);
  if (parsed.data.products.length > limit) problems.push(`answered ${parsed.data.products.length} products to limit ${limit}`);
  return problems;
}

const handleOf = (title: string) =>
  title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-');

/** An Admin price amount ("24.0", "89.5") for cents. */
const adminAmount = (priceCents: number) => {
  const amount = String(priceCents / 100);
  return amount.includes('.') ? amount : `${amount}.0`;
};

let accessScopes: Set<string> | undefined;

/**
 * Every Shopify access scope the pinned Admin schema documents (`read_orders`,
 * `write_products`, …, as its descriptions name them): what the authorize request may ask for.
 */
export function shopifyAccessScopes(): ReadonlySet<string> {
  accessScopes ??= new Set(readFileSync(ensureAdminSchema(shopifyApiVersion), 'utf8').match(/\b(?:read|write)_[a-z][a-z_]*[a-z]\b/g) ?? []);
  return accessScopes;
}

const minute = 60_000;
const day = 24 * 60 * minute;
/** How long an authorization code may wait for its exchange. Shopify's docs give no figure; RFC 6749 §4.1.2 recommends at most 10 minutes. */
const codeLifetimeMs = 10 * minute;
/** How long a used refresh token may still be retried while its replacement is unused (Shopify's changelog of August 2026: 30 days from its first use). */
const refreshRecoveryMs = 30 * day;

/**
 * A local Shopify store: Admin GraphQL (shop, product, products by title, webhook
 * subscriptions), the client-credentials grant of a Dev Dashboard app, and, with `app`,
 * the authorization code grant of the deployment's public app (install page, code
 * exchange, expiring offline tokens and their renewal) with its app webhooks.
 */
export async function startFakeShopify(options: FakeShopifyOptions = {}) {
  // The Admin schema is built now, not on the first request: building it took 0.6 s here,
  // and on a busy run a first credential check waited past its 8 s limit behind it.
  adminSchema(shopifyApiVersion);
  const shopDomain = options.shopDomain ?? 'test-shop.myshopify.com';
  const now = options.now ?? Date.now;
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 86_399;
  const accessTokens = new Set(options.accessTokens ?? ['shpat_test_valid']);
  const tokenScopes = new Map<string, string[]>(Object.entries(options.tokenScopes ?? {}));
  let appScopes = options.appScopes ?? defaultGrantedScopes;
  const scopesOf = (token: string): string[] =>
    tokenScopes.get(token) ?? (oauthAccessTokens.has(token) ? installation.scopes : issuedTokens.has(token) ? appScopes : defaultGrantedScopes);
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
  const counts: Record<ShopifyEndpoint, number> = { graphql: 0, 'access-token': 0, recommendations: 0 };
  /** GraphQL root fields answered, e.g. counts of 'shop', 'product', 'webhookSubscriptionCreate'. */
  const operationCounts: Record<string, number> = {};

  // ---- The deployment's public app (options.app): its one installation on this shop.
  const accessTokenLifetimeSeconds = options.accessTokenLifetimeSeconds ?? 3600;
  const refreshTokenLifetimeSeconds = options.refreshTokenLifetimeSeconds ?? 90 * 24 * 3600;
  const appName = options.app?.name ?? 'Flowsmith';
  /** The shop's name in admin.shopify.com/store/<name>, which `host` encodes. */
  const storeHandle = shopDomain.replace(/\.myshopify\.com$/, '');
  const installation = {
    installed: false,
    /** The access scopes granted to the installation (its tokens carry these, whenever they were issued). */
    scopes: [] as string[],
    /** Authorizing again with offline access returns the same non-expiring token (Shopify's offline-access-tokens page). */
    nonExpiringToken: null as string | null,
    /** The next installs grant exactly these scopes (grantOnly); null: what was asked. */
    grantOnly: null as string[] | null,
  };
  /** Install pages shown and not yet answered, by the id their form carries. */
  const pendingInstalls = new Map<string, { redirectUri: string; state: string; scopes: string[] }>();
  const authorizationCodes = new Map<string, { scopes: string[]; expiresAt: number; used: boolean }>();
  /** The app's access tokens on this shop, with their expiry (null: a non-expiring offline token). */
  const oauthAccessTokens = new Map<string, { expiresAt: number | null }>();
  interface RefreshToken {
    token: string;
    expiresAt: number;
    /** The refresh token this one replaced (null: it came with a code). */
    parent: RefreshToken | null;
    /** The replacements issued for it (more than one when an answer was lost and it was used again). */
    successors: RefreshToken[];
    firstUsedAt: number | null;
    retired: boolean;
  }
  const refreshTokens = new Map<string, RefreshToken>();
  /** Webhook subscriptions the app made with its own tokens: Shopify deletes them when the app is uninstalled. */
  const appSubscriptionIds = new Set<string>();
  const tokenRequests: ShopifyTokenRequest[] = [];
  const faults = { loseAnswers: 0 };
  let webhookDeliveryUrl = options.webhookDeliveryUrl ?? ((uri: string) => uri);

  // ---- The storefront's product recommendations (Ajax API, public: no token).
  /** The storefront's products by numeric id. */
  const storefrontProducts = new Map<string, FakeStorefrontProduct>();
  /** Recommended product ids by `${productId}:${intent}`, in the order answered. */
  const recommendationLists = new Map<string, string[]>();
  const storefront = {
    /** Where the storefront sends visitors instead (a shop's primary domain), or null. */
    redirectTo: null as string | null,
    /** The online store is password-protected: every storefront request is sent to /password. */
    passwordProtected: false,
  };

  function setStorefrontProduct(product: FakeStorefrontProduct) {
    const id = String(product.id);
    if (!/^\d+$/.test(id)) throw new Error(`a storefront product id is numeric, not ${id}`);
    storefrontProducts.set(id, product);
    const gid = productGid(id);
    if (!products.has(gid)) {
      const handle = product.handle ?? handleOf(product.title);
      products.set(gid, {
        title: product.title,
        description: (product.description ?? product.title).replace(/<[^>]*>/g, '').trim(),
        onlineStoreUrl: product.published === false ? null : `https://${shopDomain}/products/${handle}`,
        featuredImage: product.image ? { url: product.image.startsWith('//') ? `https:${product.image}` : product.image } : null,
        priceRangeV2: { minVariantPrice: { amount: adminAmount(product.price), currencyCode: 'USD' } },
      });
    }
  }

  function setRecommendations(productId: number | string, intent: FakeRecommendationIntent, recommended: FakeStorefrontProduct[]) {
    for (const product of recommended) setStorefrontProduct(product);
    recommendationLists.set(`${String(productId)}:${intent}`, recommended.map((product) => String(product.id)));
  }

  for (const list of options.recommendations ?? []) setRecommendations(list.productId, list.intent, list.products);

  /** Whether the storefront shows product `id`: published to the online store (for the stand-in: set up as such, or an Admin product with an onlineStoreUrl). */
  function storefrontShows(id: string): boolean {
    const own = storefrontProducts.get(id);
    if (own) return own.published !== false;
    if (recommendationLists.has(`${id}:related`) || recommendationLists.has(`${id}:complementary`)) return true;
    const admin = products.get(productGid(id));
    return admin !== undefined && admin.onlineStoreUrl !== null;
  }

  /** One product as the storefront's product JSON has it, on its way to the answer (ids as exact-digit markers). */
  function storefrontProductJson(product: FakeStorefrontProduct, sourceId: string, intent: FakeRecommendationIntent) {
    const id = String(product.id);
    const handle = product.handle ?? handleOf(product.title);
    const available = product.available ?? true;
    const compareAt = product.compareAtPrice ?? null;
    const image = product.image ?? null;
    const published = new Date(now() - 30 * day).toISOString();
    const imageMedia = image
      ? [{ alt: null, id: `#exact#${id}9`, position: 1, preview_image: { aspect_ratio: 1, height: 1200, width: 1200, src: `https:${image.replace(/^https?:/, '')}` }, aspect_ratio: 1, height: 1200, media_type: 'image', src: `https:${image.replace(/^https?:/, '')}`, width: 1200 }]
      : [];
    // Shopify labels the strategy behind each recommendation (pr_prod_strat) and the request
    // (pr_rec_id) for the merchant's analytics; their values mean nothing to an app.
    const strategy = intent === 'complementary' ? 'pinned' : 'e5_desc';
    return {
      id: `#exact#${id}`,
      title: product.title,
      handle,
      description: product.description ?? `<p>${product.title}</p>`,
      published_at: published,
      created_at: published,
      vendor: product.vendor ?? options.shopName ?? 'Fake Shop',
      type: '',
      tags: [],
      price: product.price,
      price_min: product.price,
      price_max: product.price,
      available,
      price_varies: false,
      compare_at_price: compareAt,
      compare_at_price_min: compareAt ?? 0,
      compare_at_price_max: compareAt ?? 0,
      compare_at_price_varies: false,
      variants: [
        {
          id: `#exact#${id}1`,
          title: 'Default Title',
          option1: 'Default Title',
          option2: null,
          option3: null,
          sku: '',
          requires_shipping: true,
          taxable: true,
          featured_image: null,
          available,
          name: product.title,
          public_title: null,
          options: ['Default Title'],
          price: product.price,
          weight: 0,
          compare_at_price: compareAt,
          inventory_management: 'shopify',
          barcode: '',
          requires_selling_plan: false,
          selling_plan_allocations: [],
          quantity_rule: { min: 1, max: null, increment: 1 },
        },
      ],
      images: image ? [image] : [],
      featured_image: image,
      options: [{ name: 'Title', position: 1, values: ['Default Title'] }],
      url: `/products/${handle}?pr_prod_strat=${strategy}&pr_rec_id=${randomBytes(5).toString('hex')}&pr_rec_pid=${id}&pr_ref_pid=${sourceId}&pr_seq=uniform`,
      media: imageMedia,
      requires_selling_plan: false,
      selling_plan_groups: [],
      ...product.raw,
    };
  }

  /**
   * GET /{locale}/recommendations/products.json, its query already held to the definition
   * (recommendationQueryProblems). An unknown or unpublished product: 404 "Product not
   * found". Otherwise the list set for the product and intent (none set: an empty list, as
   * a shop without complementary products set up in Search & Discovery answers), less
   * unpublished products, at most `limit`.
   */
  function handleRecommendations(request: RecordedRequest): FakeReply {
    if (storefront.passwordProtected) return { status: 302, headers: { location: '/password' } };
    if (storefront.redirectTo !== null) {
      const query = request.query.toString();
      return { status: 301, headers: { location: `${storefront.redirectTo.replace(/\/+$/, '')}${request.path}${query ? `?${query}` : ''}` } };
    }
    const productId = request.query.get('product_id')!;
    const intent = (request.query.get('intent') ?? 'related') as FakeRecommendationIntent;
    const limit = Number(request.query.get('limit') ?? 10);
    if (!storefrontShows(productId)) return storefrontRefusal(404, 'Product not found', `No product with id ${productId} is published to the online store.`);
    const answered = (recommendationLists.get(`${productId}:${intent}`) ?? [])
      .map((id) => storefrontProducts.get(id))
      .filter((product): product is FakeStorefrontProduct => product !== undefined && product.published !== false)
      .slice(0, limit);
    const body = JSON.stringify({ intent, products: answered.map((product) => storefrontProductJson(product, productId, intent)) }).replace(/"#exact#(\d+)"/g, '$1');
    return { status: 200, body, contentType: 'application/json; charset=utf-8', ...(answered.some((product) => product.raw) ? { offContract: true as const } : {}) };
  }

  function issueExpiringPair(parent: RefreshToken | null) {
    const at = now();
    const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
    oauthAccessTokens.set(accessToken, { expiresAt: at + accessTokenLifetimeSeconds * 1000 });
    const refresh: RefreshToken = { token: `shprt_${randomBytes(16).toString('hex')}`, expiresAt: at + refreshTokenLifetimeSeconds * 1000, parent, successors: [], firstUsedAt: null, retired: false };
    refreshTokens.set(refresh.token, refresh);
    parent?.successors.push(refresh);
    return {
      access_token: accessToken,
      scope: installation.scopes.join(','),
      expires_in: accessTokenLifetimeSeconds,
      refresh_token: refresh.token,
      refresh_token_expires_in: refreshTokenLifetimeSeconds,
    };
  }

  const appClientRefused = (body: Record<string, string>) => !options.app || body.client_id !== options.app.clientId || body.client_secret !== options.app.clientSecret;
  const invalidClient = (): FakeReply => ({
    status: options.invalidClientStatus ?? 400,
    body: { error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' },
  });

  /**
   * The code exchange (client_id, client_secret, code, expiring). A code is good once, for
   * 10 minutes, for this app on this shop; a used, unknown or expired one gets Shopify's
   * 400 `invalid_request` "The authorization code was not found or was already used" (its
   * answer as apps have quoted it). expiring '1' gives an expiring offline token and a
   * refresh token (and replaces the refresh tokens an earlier code gave: "a later token
   * acquisition for the same store replaces that pair"); otherwise the installation's one
   * non-expiring offline token.
   */
  function handleCodeExchange(body: Record<string, string>): FakeReply {
    if (appClientRefused(body)) return invalidClient();
    const code = authorizationCodes.get(body.code ?? '');
    if (!code || code.used || code.expiresAt <= now() || !installation.installed) {
      if (code) code.used = true;
      return { status: 400, body: { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' } };
    }
    code.used = true;
    if (body.expiring === '1') {
      for (const refresh of refreshTokens.values()) refresh.retired = true;
      return { status: 200, body: issueExpiringPair(null) };
    }
    installation.nonExpiringToken ??= `shpat_${randomBytes(16).toString('hex')}`;
    oauthAccessTokens.set(installation.nonExpiringToken, { expiresAt: null });
    return { status: 200, body: { access_token: installation.nonExpiringToken, scope: installation.scopes.join(',') } };
  }

  /**
   * The renewal (grant_type=refresh_token): a new access token and a new refresh token each
   * time. The rule since Shopify's changelog of 28 August 2026: a used refresh token can be
   * used again (a lost answer) until one of its replacements is used, for up to 30 days
   * from its first use; when a replacement is used, the token it replaced is retired (and
   * so are that token's other, unused replacements). A retired, unknown or expired refresh
   * token gets RFC 6749's 400 `invalid_grant` (Shopify's OAuth page names the error; its
   * wording is the stand-in's). Access tokens issued earlier stay valid until they expire.
   */
  function handleRefresh(body: Record<string, string>): FakeReply {
    if (appClientRefused(body)) return invalidClient();
    const at = now();
    const refresh = refreshTokens.get(body.refresh_token ?? '');
    const recoveryOver = refresh?.firstUsedAt !== null && refresh?.firstUsedAt !== undefined && at - refresh.firstUsedAt > refreshRecoveryMs;
    if (!refresh || refresh.retired || refresh.expiresAt <= at || recoveryOver) {
      return { status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked.' } };
    }
    refresh.firstUsedAt ??= at;
    if (refresh.parent && !refresh.parent.retired) {
      refresh.parent.retired = true;
      for (const sibling of refresh.parent.successors) if (sibling !== refresh) sibling.retired = true;
    }
    return { status: 200, body: issueExpiringPair(refresh) };
  }

  /** The answer of a token request the stand-in carried out but whose answer is lost: the client's HTTP parser refuses it, so no status or body reaches the app. */
  const lostAnswer = (): FakeReply => ({ status: 200, headers: { 'content-length': 'lost', connection: 'close' }, body: '{}', offContract: true });

  /** The callback query Shopify sends the browser to redirect_uri with after Install. */
  function callbackLocation(pending: { redirectUri: string; state: string }, code: string): string {
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${storeHandle}`).toString('base64url'),
      shop: shopDomain,
      state: pending.state,
      timestamp: String(Math.floor(now() / 1000)),
    };
    const location = new URL(pending.redirectUri);
    location.searchParams.set('code', params.code!);
    location.searchParams.set('hmac', signShopifyQuery(params, options.app!.clientSecret));
    for (const name of ['host', 'shop', 'state', 'timestamp']) location.searchParams.set(name, params[name]!);
    return location.toString();
  }

  function issueCode(scopes: string[]): string {
    const code = randomBytes(16).toString('hex');
    authorizationCodes.set(code, { scopes, expiresAt: now() + codeLifetimeMs, used: false });
    return code;
  }

  /**
   * GET /admin/oauth/authorize, once the contract let it through (shopifyAuthorizeProblems):
   * the install page, naming the app, the shop and the scopes asked, with Install and
   * Cancel. An installation that already has every scope asked is sent straight back with
   * a new code, as Shopify skips the grant screen then.
   */
  function handleAuthorize(request: RecordedRequest): FakeReply {
    const scopes = request.query.get('scope')!.split(',').map((scope) => scope.trim()).filter(Boolean);
    const pending = { redirectUri: request.query.get('redirect_uri')!, state: request.query.get('state')! };
    if (installation.installed && installation.grantOnly === null && scopes.every((scope) => installation.scopes.includes(scope))) {
      return { status: 302, headers: { location: callbackLocation(pending, issueCode(installation.scopes)) } };
    }
    const id = randomUUID();
    pendingInstalls.set(id, { ...pending, scopes });
    return consentPage({
      title: `Install ${appName}`,
      paragraphs: [`${appName} wants to be installed on ${shopDomain} (${options.shopName ?? 'Fake Shop'}).`],
      listHeading: `${appName} will be able to:`,
      items: scopes,
      action: '/admin/oauth/authorize/decision',
      hidden: { install_request: id },
      buttons: [
        { label: 'Install', value: 'install' },
        { label: 'Cancel', value: 'cancel' },
      ],
    });
  }

  /**
   * The install page's buttons. Install grants the scopes asked (or grantOnly's) and sends
   * the browser to redirect_uri with code, hmac, host, shop, state and timestamp. Cancel:
   * Shopify does not call the app back (its legacy grant screen returns the merchant to the
   * admin), so the stand-in shows "Installation cancelled" and the app hears nothing.
   */
  function handleDecision(request: RecordedRequest): FakeReply {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, string>;
    const pending = pendingInstalls.get(body.install_request ?? '');
    if (!pending) return refusalPage('This page has expired', 'This installation request was already answered or is unknown. Start the installation again from the app.');
    pendingInstalls.delete(body.install_request!);
    if (body.decision !== 'install') return messagePage('Installation cancelled', `${appName} was not installed on ${shopDomain}.`);
    const granted = installation.grantOnly ?? pending.scopes;
    installation.installed = true;
    installation.scopes = [...granted];
    return { status: 302, headers: { location: callbackLocation(pending, issueCode(installation.scopes)) } };
  }

  /** POSTs an app webhook to every subscription of `topic`, as Shopify sends them (5 s to answer). */
  async function deliverAppWebhook(subscriptionTopic: string, topic: string, payload: unknown): Promise<ShopifyAppWebhookDelivery[]> {
    if (!options.app) throw new Error('the Shopify stand-in has no app (options.app) to sign its webhooks with');
    const body = JSON.stringify(payload);
    const subscriptions = [...webhookSubscriptions.values()].filter((subscription) => subscription.topic === subscriptionTopic);
    return Promise.all(
      subscriptions.map(async (subscription) => {
        const url = webhookDeliveryUrl(subscription.uri);
        const webhookId = randomUUID();
        const headers = {
          'Content-Type': 'application/json',
          'X-Shopify-Topic': topic,
          'X-Shopify-Hmac-Sha256': signShopifyWebhook(body, options.app!.clientSecret),
          'X-Shopify-Shop-Domain': shopDomain,
          'X-Shopify-API-Version': shopifyApiVersion,
          'X-Shopify-Webhook-Id': webhookId,
          'X-Shopify-Event-Id': randomUUID(),
          'X-Shopify-Triggered-At': new Date(now()).toISOString(),
        };
        let status: number | null = null;
        try {
          const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(5000) });
          status = response.status;
          await response.arrayBuffer().catch(() => undefined);
        } catch {
          status = null;
        }
        return { topic, uri: subscription.uri, url, webhookId, body, status };
      }),
    );
  }

  /** The shop as Shopify's app/uninstalled payload carries it (the Shop resource of its sample payload). */
  const shopPayload = () => ({
    id: 1,
    name: options.shopName ?? 'Fake Shop',
    email: 'owner@example.com',
    domain: shopDomain,
    province: 'Massachusetts',
    country: 'US',
    address1: '1 Main St',
    zip: '02110',
    city: 'Boston',
    source: null,
    phone: null,
    latitude: null,
    longitude: null,
    primary_locale: 'en',
    address2: null,
    created_at: new Date(now() - 365 * day).toISOString(),
    updated_at: new Date(now()).toISOString(),
    country_code: 'US',
    country_name: 'United States',
    currency: 'USD',
    customer_email: 'owner@example.com',
    timezone: '(GMT-05:00) Eastern Time (US & Canada)',
    iana_timezone: 'America/New_York',
    shop_owner: 'Kim Owner',
    money_format: '${{amount}}',
    money_with_currency_format: '${{amount}} USD',
    weight_unit: 'lb',
    province_code: 'MA',
    taxes_included: false,
    auto_configure_tax_inclusivity: null,
    tax_shipping: null,
    county_taxes: true,
    plan_display_name: 'Basic',
    plan_name: 'basic',
    has_discounts: false,
    has_gift_cards: false,
    myshopify_domain: shopDomain,
    google_apps_domain: null,
    google_apps_login_enabled: null,
    money_in_emails_format: '${{amount}}',
    money_with_currency_in_emails_format: '${{amount}} USD',
    eligible_for_payments: true,
    requires_extra_payments_agreement: false,
    password_enabled: false,
    has_storefront: true,
    finances: true,
    primary_location_id: null,
    checkout_api_supported: true,
    multi_location_enabled: true,
    setup_required: false,
    pre_launch_enabled: false,
    enabled_presentment_currencies: ['USD'],
    marketing_sms_consent_enabled_at_checkout: false,
    transactional_sms_disabled: false,
  });

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
    const oauth = oauthAccessTokens.get(token);
    if (oauth) return oauth.expiresAt === null || oauth.expiresAt > now();
    const expiresAt = issuedTokens.get(token);
    return expiresAt !== undefined && expiresAt > now();
  }

  function handleAccessToken(request: RecordedRequest): FakeReply {
    const body = (request.body && typeof request.body === 'object' ? request.body : Object.fromEntries(request.query)) as Record<string, string>;
    const grant = shopifyGrantOf(body);
    if (grant === 'authorization_code') return handleCodeExchange(body);
    if (grant === 'refresh_token') return handleRefresh(body);
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
        if (oauthAccessTokens.has(String(request.headers['x-shopify-access-token']))) appSubscriptionIds.add(subscription.id);
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
      if (request.method === 'GET' && isRecommendationsPath(request.path)) {
        const problems = recommendationQueryProblems(request.query);
        return problems.length > 0 ? { problems, reply: storefrontRefusal(422, 'Invalid parameter error', problems.join('; ')) } : undefined;
      }
      if (request.method === 'POST' && request.path === '/admin/oauth/access_token') return checkShopifyTokenRequest(request);
      if (request.method === 'GET' && request.path === '/admin/oauth/authorize') {
        const problems = shopifyAuthorizeProblems(request.query, options.app, shopifyAccessScopes());
        return problems.length > 0 ? { problems, reply: shopifyAuthorizeRefusal(problems) } : undefined;
      }
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
      if (request.method === 'GET' && isRecommendationsPath(request.path)) return recommendationsAnswerProblems(request, reply);
      if (request.path === '/admin/oauth/access_token') return checkShopifyTokenAnswer(request, reply);
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
    if (options.app && request.method === 'GET' && request.path === '/admin/oauth/authorize') return handleAuthorize(request);
    if (options.app && request.method === 'POST' && request.path === '/admin/oauth/authorize/decision') return handleDecision(request);
    const endpoint: ShopifyEndpoint | undefined =
      request.method === 'POST' && request.path === graphqlPath
        ? 'graphql'
        : request.method === 'POST' && request.path === '/admin/oauth/access_token'
          ? 'access-token'
          : request.method === 'GET' && isRecommendationsPath(request.path)
            ? 'recommendations'
            : undefined;
    if (!endpoint) return { status: 404, body: { errors: 'Not Found' } };
    counts[endpoint] += 1;
    let received: ShopifyTokenRequest | undefined;
    if (endpoint === 'access-token') {
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, string>;
      received = {
        grantType: shopifyGrantOf(body),
        ...(body.code !== undefined ? { code: body.code } : {}),
        ...(body.refresh_token !== undefined ? { refreshToken: body.refresh_token } : {}),
        ...(body.expiring !== undefined ? { expiring: body.expiring } : {}),
        receivedAt: now(),
        get status() {
          return request.status;
        },
        lost: false,
      };
      tokenRequests.push(received);
    }
    const failure = failureFor(request, endpoint);
    // The storefront has no GraphQL: a 'graphql-errors' failure is its 500 there.
    if (failure) return failureReply(endpoint === 'recommendations' && failure.kind === 'graphql-errors' ? { kind: 'status', status: 500 } : failure);
    if (endpoint === 'recommendations') return handleRecommendations(request);
    if (endpoint === 'access-token') {
      const reply = handleAccessToken(request);
      if (faults.loseAnswers === 0) return reply;
      faults.loseAnswers -= 1;
      received!.lost = true;
      return { ...lostAnswer(), status: reply.status };
    }
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

    // ---- The storefront's product recommendations (GET /{locale}/recommendations/products.json).

    /** The storefront's products by numeric id (those set by setStorefrontProduct or setRecommendations). */
    storefrontProducts,
    /**
     * What the storefront recommends for product `productId` with `intent`, in this order
     * (replacing what was set before). Each product joins the storefront (setStorefrontProduct),
     * and the product recommended for is shown on it unless set unpublished.
     */
    setRecommendations,
    /** Adds or replaces a storefront product (published, in stock by default); the Admin API gets it too unless it has that id. */
    setStorefrontProduct,
    /** Every request to the recommendations endpoint, in order (refused ones included). */
    recommendationRequests(): RecordedRequest[] {
      return server.requests.filter((request) => request.method === 'GET' && isRecommendationsPath(request.path));
    },
    /** The storefront sends visitors to `url` (its primary domain) with 301, same path and query; null: it answers itself again. */
    setStorefrontRedirect(url: string | null) {
      storefront.redirectTo = url;
    },
    /** The online store is password-protected (true): storefront requests are sent to /password with 302. */
    setStorefrontPassword(protectedByPassword: boolean) {
      storefront.passwordProtected = protectedByPassword;
    },

    // ---- The deployment's public app (options.app): OAuth and the app's webhooks.

    /** Whether the app is installed on the shop (an Install pressed, and no uninstall since). */
    get installed() {
      return installation.installed;
    },
    /** The scopes the installation has; its tokens carry these. */
    get grantedScopes(): readonly string[] {
      return installation.scopes;
    },
    /** Every request to /admin/oauth/access_token that reached the stand-in, in order, by grant, with the code or refresh token it used. */
    tokenRequests,
    /** The app's access tokens on the shop and their expiry in ms (null: non-expiring). */
    oauthAccessTokens,
    /**
     * Makes the next installs grant exactly `scopes` (fewer than asked, as a merchant or
     * Shopify may); null: what was asked again.
     */
    grantOnly(scopes: string[] | null) {
      installation.grantOnly = scopes ? [...scopes] : null;
    },
    /**
     * The next token request is carried out (tokens issued, rotation applied, the code
     * used) but its answer never arrives: the connection ends with a response no HTTP
     * client can read, so the app's request fails as on a reset.
     */
    loseNextTokenAnswer() {
      faults.loseAnswers += 1;
    },
    /**
     * The next `times` token requests (any grant) fail before anything is done: answered
     * with `status` (a 5xx, Shopify's `{ errors }` body) or, with 'timeout', never answered
     * until the client gives up.
     */
    failTokenRequests(times: number, status: number | 'timeout') {
      for (let index = 0; index < times; index += 1) {
        queue.push(status === 'timeout' ? { kind: 'hang', on: 'access-token' } : { kind: 'status', status, on: 'access-token' });
      }
    },
    /** Every access token of the app on the shop (expiring or not) expires now: the Admin API answers them 401. Refresh tokens are untouched. */
    expireAccessTokens() {
      const at = now();
      for (const token of oauthAccessTokens.values()) token.expiresAt = at;
    },
    /** Where app webhooks are posted from now on (see the option `webhookDeliveryUrl`). */
    setWebhookDeliveryUrl(map: (subscriptionUri: string) => string) {
      webhookDeliveryUrl = map;
    },
    /**
     * The merchant uninstalls the app: every token of the app on this shop dies at once
     * (access tokens answer 401, refresh tokens and unused codes invalid_grant /
     * invalid_request), Shopify POSTs `app/uninstalled` (the shop as payload, signed with
     * the app's client secret) to every APP_UNINSTALLED subscription, and then deletes the
     * subscriptions the app made with its tokens, as Shopify removes an uninstalled app's
     * webhooks. Returns each delivery with the receiver's status. A later install through
     * the install page works again, with new tokens.
     */
    async uninstall(): Promise<ShopifyAppWebhookDelivery[]> {
      if (!options.app) throw new Error('the Shopify stand-in has no app (options.app) to uninstall');
      installation.installed = false;
      installation.scopes = [];
      installation.nonExpiringToken = null;
      oauthAccessTokens.clear();
      refreshTokens.clear();
      authorizationCodes.clear();
      pendingInstalls.clear();
      const deliveries = await deliverAppWebhook('APP_UNINSTALLED', 'app/uninstalled', shopPayload());
      for (const id of appSubscriptionIds) webhookSubscriptions.delete(id);
      appSubscriptionIds.clear();
      return deliveries;
    },
    /**
     * The installation's scopes change to `scopes` (the merchant approved more, or some were
     * taken back): its tokens carry them from now on, and Shopify POSTs `app/scopes_update`
     * ({ id, previous, current, updated_at, shop_id }) to every APP_SCOPES_UPDATE subscription.
     */
    async updateScopes(scopes: string[]): Promise<ShopifyAppWebhookDelivery[]> {
      if (!installation.installed) throw new Error('the app is not installed on the shop');
      const previous = installation.scopes;
      installation.scopes = [...scopes];
      return deliverAppWebhook('APP_SCOPES_UPDATE', 'app/scopes_update', {
        id: 1,
        previous,
        current: installation.scopes,
        updated_at: new Date(now()).toISOString(),
        shop_id: 1,
      });
    },
    close: server.close,
  };
}
export type FakeShopify = Awaited<ReturnType<typeof startFakeShopify>>;

/**
 * The `hmac` of a query Shopify sends an app (the OAuth callback, the install link): hex
 * HMAC-SHA256 keyed with the app's client secret over the other parameters (`hmac` and
 * `signature` left out) sorted by name and joined `name=value&…`, each URL-encoded as the
 * official library's `utils.validateHmac` encodes them (URLSearchParams, spaces as %20).
 * Tests forge or check callbacks with it.
 */
export function signShopifyQuery(params: Record<string, string>, secret: string): string {
  const query = new URLSearchParams();
  for (const name of Object.keys(params).sort((a, b) => a.localeCompare(b))) {
    if (name !== 'hmac' && name !== 'signature') query.append(name, params[name]!);
  }
  return createHmac('sha256', secret).update(query.toString().replace(/\+/g, '%20')).digest('hex');
}

/**
 * The address Shopify opens when a merchant installs or opens the app from the admin or
 * the App Store: the app's URL (`appUrl`) with `hmac`, `host`, `shop` and `timestamp`
 * (seconds of `now`, in ms, default Date.now()) added, the hmac signing every parameter of
 * the address (those `appUrl` already had too) with the app's client secret.
 */
export function shopifyInstallLaunchUrl(appUrl: string, shop: string, secret: string, now: number = Date.now()): string {
  const url = new URL(appUrl);
  url.searchParams.set('host', Buffer.from(`admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}`).toString('base64url'));
  url.searchParams.set('shop', shop);
  url.searchParams.set('timestamp', String(Math.floor(now / 1000)));
  url.searchParams.set('hmac', signShopifyQuery(Object.fromEntries(url.searchParams), secret));
  return url.toString();
}

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
 * Posts a webhook as Shopify would, with every X-Shopify-* header of
 * docs/product/service-contracts.md §4. `payload` is sent as is when a string, else as
 * JSON; `extraHeaders` override the defaults (same event id to test de-duplication, a
 * wrong HMAC …).
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
 * A checkout as Shopify's checkouts/* webhooks carry it
 * (docs/product/service-contracts.md §4), with fresh ids and tokens; `overrides` replace
 * fields (updated_at, cart_token, line_items …).
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
