import { fetchShopifyRecommendations } from '../../integrations/shopify/shopify-recommendations.ts';
import { shopifyProductGid, type ShopifyProductDetails } from '../../integrations/shopify/shopify-products.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { CredentialDecryptionError } from '../../platform/credential-cipher.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type { RecommendationSettings } from '../../../shared/flows/flow-schemas.ts';
import type { RecommendedProduct } from '../../../shared/flows/recommendation-schemas.ts';
import { lookUpProducts, productDetailsDeps, shopOf, SHOP_NOT_CONNECTED } from './shop-product-details.ts';
import { cacheRecommendations, findCachedRecommendations, type CachedRecommendation, type RecommendationKey } from './shop-recommendation-queries.ts';
import { RateLimitWait } from '../spine/rate-limit-wait.ts';
import type { EngineCredentials } from '../spine/engine-credentials.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';

/**
 * What the owner's shop would pair with the event's product
 * (docs/decisions/0050-recommendations-from-the-shop.md): Shopify's own recommendations
 * from the storefront, which holds only published products, less those out of stock, in
 * the event already or bought by the shopper before. Never fails the event: a shop that
 * cannot be asked leaves the texts without recommendations, and `problem` says why.
 */

/** The storefront is asked for its most (10) so that some are left after the shopper's own are taken out. */
const ASKED_OF_THE_STOREFRONT = 10;
/** An optional extra is not worth holding the event up for as long as a text is. */
export const RECOMMENDATIONS_TIMEOUT_MS = 10_000;

export interface FoundRecommendations {
  products: RecommendedProduct[];
  /** Why there are none, when the shop could not be asked; null otherwise. */
  problem: string | null;
}

const nameKey = (name: string | null | undefined) => name?.trim().toLowerCase() ?? '';

/**
 * The recommendations for this shopper. `owned` names the products the shopper has in the
 * event or bought before (by Shopify gid and by title), none of which is recommended.
 */
export async function recommendationsFor(
  context: PipelineContext,
  shopper: {
    userId: string;
    settings: RecommendationSettings;
    described: NormalizedEvent;
    owned: { gids: ReadonlySet<string>; names: ReadonlySet<string> };
    credentials: EngineCredentials;
    signal: AbortSignal;
  },
): Promise<FoundRecommendations> {
  const { userId, settings, described, owned, credentials, signal } = shopper;
  const source = described.products.map((product) => shopifyProductGid(product.id)).find((gid) => gid !== null);
  const shop = shopOf(context, credentials);
  if (!source || !shop) return { products: [], problem: null };
  const deps = productDetailsDeps(context, shop, credentials);
  try {
    if (await deps.conditions?.standing(userId, 'shopify_refused')) return { products: [], problem: 'Recommendations not fetched: the shop refused Flowsmith.' };
    const connection = await shop.connectionFor(userId, signal);
    if (!connection) return { products: [], problem: null };
    const now = context.clock.now();
    const key = { userId, productGid: source, intent: settings.intent };
    const storefront = (await findCachedRecommendations(context.pool, key, now)) ?? (await askTheStorefront(context, key, { shopUrl: connection.shopUrl, now, signal }));
    const wanted = storefront.filter((product) => product.available && !owned.gids.has(product.gid) && !owned.names.has(nameKey(product.title))).slice(0, settings.count);
    if (wanted.length === 0) return { products: [], problem: null };
    const currency = await shopCurrency(deps, { userId, source, described, signal });
    return { products: wanted.map((product) => asRecommended(product, currency)), problem: null };
  } catch (error) {
    if (signal.aborted) throw error;
    if (!(error instanceof ServiceError || error instanceof CredentialDecryptionError || error instanceof RateLimitWait)) throw error;
    return { products: [], problem: `Recommendations not fetched: ${error.message}` };
  }
}

async function askTheStorefront(context: PipelineContext, key: RecommendationKey, asking: { shopUrl: string; now: Date; signal: AbortSignal }): Promise<CachedRecommendation[]> {
  const { shopUrl, now, signal } = asking;
  const answered = await fetchShopifyRecommendations(
    { shopUrl, now: () => context.clock.now(), timeoutMs: RECOMMENDATIONS_TIMEOUT_MS },
    { productGid: key.productGid, intent: key.intent, limit: ASKED_OF_THE_STOREFRONT },
    signal,
  );
  await cacheRecommendations(context.pool, key, answered, now);
  return answered;
}

function asRecommended(product: CachedRecommendation, currency: string | null): RecommendedProduct {
  return { title: product.title, url: product.url, image: product.imageUrl, price: product.price, currency };
}

/**
 * The storefront states prices without a currency: they are in the shop's own, which the
 * Admin API gives with the source product's price (cached with its details). The event's
 * currency stands in when the shop could not say.
 */
async function shopCurrency(
  deps: ReturnType<typeof productDetailsDeps>,
  asking: { userId: string; source: string; described: NormalizedEvent; signal: AbortSignal },
): Promise<string | null> {
  const { userId, source, described, signal } = asking;
  const found = new Map<string, ShopifyProductDetails | null>();
  try {
    if ((await lookUpProducts(deps, { userId, gids: [source], found, signal })) === SHOP_NOT_CONNECTED) return described.currency;
  } catch (error) {
    if (signal.aborted || !(error instanceof ServiceError || error instanceof CredentialDecryptionError || error instanceof RateLimitWait)) throw error;
  }
  return found.get(source)?.price?.currencyCode ?? described.currency;
}

/** The products a shopper has in this event or bought before, as the recommendations leave them out. */
export function ownedProducts(products: ReadonlyArray<NormalizedEvent['products'][number]>): { gids: Set<string>; names: Set<string> } {
  const gids = new Set<string>();
  const names = new Set<string>();
  for (const product of products) {
    const gid = shopifyProductGid(product.id);
    if (gid) gids.add(gid);
    if (product.name?.trim()) names.add(nameKey(product.name));
  }
  return { gids, names };
}

/** The recommendations as the prompt reads them: "Title (24.00 EUR); …". */
export function recommendationsInWords(products: readonly RecommendedProduct[]): string {
  return products.map((product) => `${product.title} (${product.price}${product.currency ? ` ${product.currency}` : ''})`).join('; ');
}
