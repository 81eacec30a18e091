import { z } from 'zod';
import type { Queryable } from '../../database/database.ts';
import { shopifyAdminGraphql, type ShopifyAdminConnection } from './shopify-admin.ts';
import { ServiceError } from '../service-error.ts';
import { CredentialDecryptionError } from '../../credentials/credential-cipher.ts';
import type { ShopifyAccessTokenProvider, ShopifyConnection } from '../../credentials/shopify-token-provider.ts';
import type { NormalizedProduct } from '../../../shared/events/event-schemas.ts';

/**
 * What the prompts may use of a product, as the owner's shop describes it. Entries cached
 * before `price` was kept do not match this shape and are fetched again.
 */
export const shopifyProductDetailsSchema = z.object({
  title: z.string(),
  description: z.string().nullable(),
  url: z.string().nullable(),
  imageUrl: z.string().nullable(),
  /** The lowest variant price (priceRangeV2.minVariantPrice). */
  price: z.object({ amount: z.string(), currencyCode: z.string() }).nullable(),
});
export type ShopifyProductDetails = z.infer<typeof shopifyProductDetailsSchema>;

/** Cached details are used this long before the shop is asked again. */
export const PRODUCT_CACHE_FRESH_MS = 24 * 60 * 60_000;

/**
 * Shopify's REST-era limit (and the GraphQL bucket's steady restore rate for small
 * queries) is about 2 requests per second per shop; every process takes its turn from
 * one row per shop, so the spacing holds across workers without a separate service.
 */
export const SHOPIFY_REQUEST_SPACING_MS = 500;

const productQuery = `query ProductDetails($id: ID!) {
  product(id: $id) { title description onlineStoreUrl featuredImage { url } priceRangeV2 { minVariantPrice { amount currencyCode } } }
}`;

const productAnswerSchema = z.object({
  product: z
    .object({
      title: z.string(),
      description: z.string().nullable().optional(),
      onlineStoreUrl: z.string().nullable().optional(),
      featuredImage: z.object({ url: z.string() }).nullable().optional(),
      priceRangeV2: z
        .object({ minVariantPrice: z.object({ amount: z.union([z.string(), z.number()]).transform(String), currencyCode: z.string() }).nullable().optional() })
        .nullable()
        .optional(),
    })
    .nullable(),
});

/** The product's gid when `id` is a Shopify product id (numeric or gid), else null. */
export function shopifyProductGid(id: string | null): string | null {
  if (!id) return null;
  if (/^\d+$/.test(id)) return `gid://shopify/Product/${id}`;
  return /^gid:\/\/shopify\/Product\/\d+$/.test(id) ? id : null;
}

/** One product's details from the Admin API; null when the shop has no such product. */
export async function fetchShopifyProduct(connection: ShopifyAdminConnection, gid: string, signal: AbortSignal): Promise<ShopifyProductDetails | null> {
  const data = await shopifyAdminGraphql(connection, productQuery, { id: gid }, productAnswerSchema, signal);
  if (!data.product) return null;
  const { title, description, onlineStoreUrl, featuredImage, priceRangeV2 } = data.product;
  const price = priceRangeV2?.minVariantPrice ?? null;
  // `description` is Shopify's plain-text rendering of descriptionHtml.
  return { title, description: description?.trim() || null, url: onlineStoreUrl ?? null, imageUrl: featuredImage?.url ?? null, price };
}

export async function findCachedProduct(db: Queryable, userId: string, gid: string, now: Date): Promise<ShopifyProductDetails | null> {
  const { rows } = await db.query<{ details: unknown }>('SELECT details FROM shopify_product_cache WHERE user_id = $1 AND product_id = $2 AND fetched_at > $3', [
    userId,
    gid,
    new Date(now.getTime() - PRODUCT_CACHE_FRESH_MS),
  ]);
  const parsed = shopifyProductDetailsSchema.safeParse(rows[0]?.details);
  return parsed.success ? parsed.data : null;
}

export async function cacheProduct(db: Queryable, userId: string, gid: string, details: ShopifyProductDetails, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO shopify_product_cache (user_id, product_id, details, fetched_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, product_id) DO UPDATE SET details = EXCLUDED.details, fetched_at = EXCLUDED.fetched_at`,
    [userId, gid, JSON.stringify(details), now],
  );
}

/**
 * Reserves the shop's next request slot and answers how long to wait for it: the row
 * moves SHOPIFY_REQUEST_SPACING_MS further on each call, in one statement, so concurrent
 * callers (in any process) get distinct slots.
 */
export async function reserveShopifyRequestSlot(db: Queryable, shop: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ start_at: Date }>(
    `INSERT INTO shopify_request_slots (shop, next_at) VALUES ($1, $2::timestamptz + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (shop) DO UPDATE SET next_at = greatest(shopify_request_slots.next_at, $2::timestamptz) + make_interval(secs => $3::double precision / 1000)
     RETURNING next_at - make_interval(secs => $3::double precision / 1000) AS start_at`,
    [shop, now, SHOPIFY_REQUEST_SPACING_MS],
  );
  return Math.max(0, rows[0]!.start_at.getTime() - now.getTime());
}

export interface ProductDetailsDeps {
  db: Queryable;
  tokens: ShopifyAccessTokenProvider;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => Date;
}

/** The owner has no Shopify credentials saved, so their shop cannot be asked. */
export const SHOP_NOT_CONNECTED = 'not_connected';

/**
 * Each product's details by gid, from the cache or else from the shop, into `found`
 * (null for a product the shop does not have; those are not cached, so a later event asks
 * again). Throws ServiceError or CredentialDecryptionError when the shop cannot be
 * asked; `found` then holds what was looked up before.
 */
export async function lookUpProducts(
  deps: ProductDetailsDeps,
  userId: string,
  gids: Iterable<string>,
  found: Map<string, ShopifyProductDetails | null>,
  signal: AbortSignal,
): Promise<typeof SHOP_NOT_CONNECTED | null> {
  const now = deps.now ?? (() => new Date());
  let connection: ShopifyConnection | null = null;
  for (const gid of gids) {
    if (found.has(gid)) continue;
    const cached = await findCachedProduct(deps.db, userId, gid, now());
    if (cached) {
      found.set(gid, cached);
      continue;
    }
    connection ??= await deps.tokens.connectionFor(userId, signal);
    if (!connection) return SHOP_NOT_CONNECTED;
    const waitMs = await reserveShopifyRequestSlot(deps.db, connection.domain, now());
    if (waitMs > 0) await deps.sleep(waitMs, signal);
    let details: ShopifyProductDetails | null;
    try {
      details = await fetchShopifyProduct(connection, gid, signal);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'unauthorized') await deps.tokens.invalidate(userId, connection.accessToken);
      throw error;
    }
    if (details) await cacheProduct(deps.db, userId, gid, details, now());
    found.set(gid, details);
  }
  return null;
}

/**
 * The event's products with missing descriptions and URLs filled in from the owner's
 * shop (cache first). Never throws for Shopify's sake: a product that could not be
 * fetched stays as it was and `problems` says why, so the event goes on without it.
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
    if ((await lookUpProducts(deps, userId, wanted, found, signal)) === SHOP_NOT_CONNECTED) return { products, problems };
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
