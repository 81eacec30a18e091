import type { Queryable } from '../../database/database.ts';
import { shopifyProductDetailsSchema, type ShopifyProductDetails } from '../../integrations/shopify/shopify-products.ts';

/** Cached details are used this long before the shop is asked again. */
export const PRODUCT_CACHE_FRESH_MS = 24 * 60 * 60_000;

/**
 * Shopify's REST-era limit (and the GraphQL bucket's steady restore rate for small
 * queries) is about 2 requests per second per shop; every process takes its turn from
 * one row per shop, so the spacing holds across workers without a separate service.
 */
export const SHOPIFY_REQUEST_SPACING_MS = 500;

export async function findCachedProduct(db: Queryable, userId: string, gid: string, now: Date): Promise<ShopifyProductDetails | null> {
  const { rows } = await db.query<{ details: unknown }>('SELECT details FROM shopify_product_cache WHERE user_id = $1 AND product_id = $2 AND fetched_at > $3', [
    userId,
    gid,
    new Date(now.getTime() - PRODUCT_CACHE_FRESH_MS),
  ]);
  const parsed = shopifyProductDetailsSchema.safeParse(rows[0]?.details);
  return parsed.success ? parsed.data : null;
}

export async function cacheProduct(db: Queryable, product: { userId: string; gid: string; details: ShopifyProductDetails; now: Date }): Promise<void> {
  const { userId, gid, details, now } = product;
  await db.query(
    `INSERT INTO shopify_product_cache (user_id, product_id, details, fetched_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, product_id) DO UPDATE SET details = EXCLUDED.details, fetched_at = EXCLUDED.fetched_at`,
    [userId, gid, JSON.stringify(details), now],
  );
}

/**
 * Reserves the shop's next request slot and answers how long to wait for it: the row
 * moves SHOPIFY_REQUEST_SPACING_MS further on each call, in one statement, so concurrent
 * callers (in any process) get distinct slots. With `maxWaitMs`, a slot further off than
 * that is not reserved (a caller that will not wait so long must not hold up the others);
 * the answer is then how long until the next slot frees, which is more than `maxWaitMs`.
 */
export async function reserveShopifyRequestSlot(db: Queryable, shop: string, now: Date, maxWaitMs: number | null = null): Promise<number> {
  const { rows } = await db.query<{ start_at: Date }>(
    `INSERT INTO shopify_request_slots (shop, next_at) VALUES ($1, $2::timestamptz + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (shop) DO UPDATE SET next_at = greatest(shopify_request_slots.next_at, $2::timestamptz) + make_interval(secs => $3::double precision / 1000)
       WHERE $4::double precision IS NULL OR shopify_request_slots.next_at <= $2::timestamptz + make_interval(secs => $4::double precision / 1000)
     RETURNING next_at - make_interval(secs => $3::double precision / 1000) AS start_at`,
    [shop, now, SHOPIFY_REQUEST_SPACING_MS, maxWaitMs],
  );
  if (rows[0]) return Math.max(0, rows[0].start_at.getTime() - now.getTime());
  const { rows: taken } = await db.query<{ next_at: Date }>('SELECT next_at FROM shopify_request_slots WHERE shop = $1', [shop]);
  return Math.max(0, (taken[0]?.next_at.getTime() ?? now.getTime()) - now.getTime());
}
