import type { Queryable } from '../../database/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { fetchShopifyProduct, shopifyProductGid, type ShopifyProductDetails } from '../../integrations/shopify/shopify-products.ts';
import { searchShopifyProductTitles } from '../../integrations/shopify/shopify-product-search.ts';
import { CredentialDecryptionError } from '../../platform/credential-cipher.ts';
import type { ShopifyAccessTokenProvider, ShopifyConnection } from '../../credentials/shopify-token-provider.ts';
import type { NormalizedProduct } from '../../../shared/events/event-schemas.ts';
import { cacheProduct, findCachedProduct, reserveShopifyRequestSlot } from './shop-product-queries.ts';
import { RateLimitWait } from '../spine/rate-limit-wait.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';
import type { EngineCredentials } from '../spine/engine-credentials.ts';
import type { ServiceConditions } from '../../service-conditions/service-conditions.ts';
import { storeRefuses } from '../../service-conditions/store-recheck.ts';
import { STORE_RECHECK_MINUTES } from '../../../shared/service-conditions/service-condition-messages.ts';
import { eventOutcomeMessages as m } from '../../../shared/events/event-messages.ts';

export interface ProductDetailsDeps {
  db: Queryable;
  tokens: ShopifyAccessTokenProvider;
  clock: Clock;
  /** A request slot this close is waited for in place; a later one makes the event wait (RateLimitWait). */
  maxInPlaceWaitMs: number;
  /** False for the sandbox's sample shop, which is the app's own and has no rate to keep to. */
  rateLimited?: boolean;
  /** The owner's store that refused its token is not asked for every event (docs/decisions/0047-service-conditions.md); none for the sample shop. */
  conditions?: ServiceConditions;
}

/** The owner's shop, or for a sandbox event the sample shop (its connection comes with the sandbox's credentials). */
export function shopOf(context: PipelineContext, credentials: EngineCredentials): ShopifyAccessTokenProvider | undefined {
  const sandbox = credentials.sandbox;
  if (!sandbox) return context.shopifyTokens;
  return { connectionFor: async () => sandbox.shop, invalidate: async () => undefined, domainFor: async () => sandbox.shop.domain };
}

export function productDetailsDeps(context: PipelineContext, tokens: ShopifyAccessTokenProvider, credentials: EngineCredentials): ProductDetailsDeps {
  return {
    db: context.pool,
    tokens,
    clock: context.clock,
    maxInPlaceWaitMs: context.options.retry.maxInPlaceWaitMs,
    rateLimited: !credentials.sandbox,
    conditions: credentials.sandbox ? undefined : context.conditions,
  };
}

/** The owner has no Shopify credentials saved, so their shop cannot be asked. */
export const SHOP_NOT_CONNECTED = 'not_connected';

/**
 * Each product's details by gid, from the cache or else from the shop, into `found`
 * (null for a product the shop does not have; those are not cached, so a later event asks
 * again). Throws ServiceError or CredentialDecryptionError when the shop cannot be asked,
 * and RateLimitWait when the shop's next request slot is too far off to wait for; `found`
 * then holds what was looked up before.
 */
/**
 * One request to the owner's shop under the shop's request limit: waits in place for a
 * slot that is near, else the event waits for it (RateLimitWait); a token Shopify refuses
 * is dropped, so the next try asks for a fresh one.
 */
async function askTheShop<T>(deps: ProductDetailsDeps, asking: { userId: string; connection: ShopifyConnection; signal: AbortSignal }, ask: () => Promise<T>): Promise<T> {
  const { userId, connection, signal } = asking;
  const { db, clock } = deps;
  const now = clock.now();
  const waitMs = deps.rateLimited === false ? 0 : await reserveShopifyRequestSlot(db, connection.domain, now, deps.maxInPlaceWaitMs);
  if (waitMs > deps.maxInPlaceWaitMs) throw new RateLimitWait('shopify', new Date(now.getTime() + waitMs));
  if (waitMs > 0) await clock.sleep(waitMs, signal);
  try {
    return await ask();
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'unauthorized') await deps.tokens.invalidate(userId, connection.accessToken);
    throw await refusalNoted(deps, userId, error);
  }
}

/**
 * How to call the owner's shop, unless it refused Flowsmith: then it is not asked again
 * until the owner saves their credentials or the periodic re-check finds it answering
 * (service-conditions/store-recheck.ts), and the event waits under the retry policy, its
 * log saying why.
 */
async function connectToShop(deps: ProductDetailsDeps, userId: string, signal: AbortSignal): Promise<ShopifyConnection | null> {
  const refused = await deps.conditions?.standing(userId, 'shopify_refused');
  if (refused) throw storeWaitedFor(refused.detail);
  try {
    return await deps.tokens.connectionFor(userId, signal);
  } catch (error) {
    throw await refusalNoted(deps, userId, error);
  }
}

/** A refusal of the store (401, 403, 404, a client the grant refuses) becomes the owner's condition, and the event waits for it to end. */
async function refusalNoted(deps: ProductDetailsDeps, userId: string, error: unknown): Promise<unknown> {
  if (!deps.conditions || !storeRefuses(error)) return error;
  await deps.conditions.raise({ userId, kind: 'shopify_refused', detail: error.message });
  return storeWaitedFor(error.message);
}

function storeWaitedFor(detail: string): ServiceError {
  return new ServiceError('shopify', 'forbidden', m.storeRefused(detail.replace(/^Shopify: /, ''), STORE_RECHECK_MINUTES), { kind: 'retryable' });
}

export async function lookUpProducts(
  deps: ProductDetailsDeps,
  lookUp: { userId: string; gids: Iterable<string>; found: Map<string, ShopifyProductDetails | null>; signal: AbortSignal },
): Promise<typeof SHOP_NOT_CONNECTED | null> {
  const { userId, gids, found, signal } = lookUp;
  const { db, clock } = deps;
  let connection: ShopifyConnection | null = null;
  for (const gid of gids) {
    if (found.has(gid)) continue;
    const cached = await findCachedProduct(db, userId, gid, clock.now());
    if (cached) {
      found.set(gid, cached);
      continue;
    }
    connection ??= await connectToShop(deps, userId, signal);
    if (!connection) return SHOP_NOT_CONNECTED;
    const shop = connection;
    const details = await askTheShop(deps, { userId, connection: shop, signal }, () => fetchShopifyProduct({ ...shop, now: () => clock.now() }, gid, signal));
    if (details) await cacheProduct(db, { userId, gid, details, now: clock.now() });
    found.set(gid, details);
  }
  return null;
}

/**
 * The event's products with missing descriptions and URLs filled in from the owner's
 * shop (cache first). Never throws for Shopify's sake: a product that could not be
 * fetched stays as it was and `problems` says why, so the event goes on without it. Only
 * a request slot too far off to wait for (RateLimitWait) goes up, so the event waits for it.
 */
export async function fillProductDetails(
  deps: ProductDetailsDeps,
  userId: string,
  products: NormalizedProduct[],
  signal: AbortSignal,
): Promise<{ products: NormalizedProduct[]; problems: string[] }> {
  const wanted = new Set(products.filter((product) => !product.description || !product.url).map((product) => shopifyProductGid(product.id)).filter((gid) => gid !== null));
  if (wanted.size === 0) return { products, problems: [] };
  const problems: string[] = [];
  const found = new Map<string, ShopifyProductDetails | null>();
  try {
    if ((await lookUpProducts(deps, { userId, gids: wanted, found, signal })) === SHOP_NOT_CONNECTED) return { products, problems };
  } catch (error) {
    if (signal.aborted || !(error instanceof ServiceError || error instanceof CredentialDecryptionError)) throw error;
    const retryAfter = error instanceof ServiceError && error.retryAfterMs !== null ? ` (retry after ${Math.ceil(error.retryAfterMs / 1000)} s)` : '';
    problems.push(`Product details not fetched: ${error.message}${retryAfter}`);
  }
  for (const [gid, details] of found) if (!details) problems.push(`Shopify has no product ${gid}.`);
  return {
    products: products.map((product) => {
      const gid = shopifyProductGid(product.id);
      const details = gid ? found.get(gid) : undefined;
      if (!details) return product;
      return { ...product, name: product.name ?? details.title, description: product.description ?? details.description, url: product.url ?? details.url };
    }),
    problems,
  };
}

/** Catalogue look-ups by phrase, kept a while in this process: the same words recur in many texts. */
const catalogueAnswers = new Map<string, { known: boolean; until: number }>();
const CATALOGUE_ANSWER_MS = 10 * 60_000;
const MAX_CATALOGUE_ANSWERS = 10_000;

/**
 * Which of the phrases a text names as products the owner's shop sells none of, asking the
 * shop's catalogue by title (docs/decisions/0040-texts-checked-before-delivery.md). Like
 * `lookUpProducts`, it throws when the shop cannot be asked (the event waits and tries
 * again), and answers SHOP_NOT_CONNECTED when there is no shop to ask.
 */
export async function phrasesNotInCatalogue(
  deps: ProductDetailsDeps,
  userId: string,
  phrases: readonly string[],
  signal: AbortSignal,
): Promise<string[] | typeof SHOP_NOT_CONNECTED> {
  const { clock } = deps;
  const unknown: string[] = [];
  let connection: ShopifyConnection | null = null;
  for (const phrase of phrases) {
    const key = `${userId}\u0000${phrase.toLowerCase()}`;
    const kept = catalogueAnswers.get(key);
    if (kept && kept.until > clock.now().getTime()) {
      if (!kept.known) unknown.push(phrase);
      continue;
    }
    connection ??= await connectToShop(deps, userId, signal);
    if (!connection) return SHOP_NOT_CONNECTED;
    const shop = connection;
    const titles = await askTheShop(deps, { userId, connection: shop, signal }, () => searchShopifyProductTitles({ ...shop, now: () => clock.now() }, phrase, signal));
    const known = titles.length > 0;
    if (catalogueAnswers.size >= MAX_CATALOGUE_ANSWERS) catalogueAnswers.delete(catalogueAnswers.keys().next().value!);
    catalogueAnswers.set(key, { known, until: clock.now().getTime() + CATALOGUE_ANSWER_MS });
    if (!known) unknown.push(phrase);
  }
  return unknown;
}
