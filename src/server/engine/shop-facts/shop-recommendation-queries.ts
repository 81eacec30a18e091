import type { Queryable } from '../../database/database.ts';
import { z } from 'zod';
import { PRODUCT_CACHE_FRESH_MS } from './shop-product-queries.ts';
import type { RecommendationIntent } from '../../../shared/flows/recommendation-options.ts';

/**
 * What the storefront recommended for one product and intent, kept as long as product
 * details are: the same products recur across many shoppers' events, and the shop's
 * recommendations change with its catalogue, not by the minute.
 */
export const cachedRecommendationSchema = z.object({
  gid: z.string(),
  title: z.string(),
  url: z.string(),
  imageUrl: z.string().nullable(),
  price: z.string(),
  available: z.boolean(),
});
export type CachedRecommendation = z.infer<typeof cachedRecommendationSchema>;

/** What the recommendations are kept under: the owner, the product they go with, and their intent. */
export interface RecommendationKey {
  userId: string;
  productGid: string;
  intent: RecommendationIntent;
}

export async function findCachedRecommendations(db: Queryable, key: RecommendationKey, now: Date): Promise<CachedRecommendation[] | null> {
  const { userId, productGid, intent } = key;
  const { rows } = await db.query<{ recommendations: unknown }>(
    'SELECT recommendations FROM shopify_recommendation_cache WHERE user_id = $1 AND product_id = $2 AND intent = $3 AND fetched_at > $4',
    [userId, productGid, intent, new Date(now.getTime() - PRODUCT_CACHE_FRESH_MS)],
  );
  if (!rows[0]) return null;
  // An entry of an older shape is asked again rather than trusted.
  const parsed = z.array(cachedRecommendationSchema).safeParse(rows[0].recommendations);
  return parsed.success ? parsed.data : null;
}

export async function cacheRecommendations(db: Queryable, key: RecommendationKey, recommendations: readonly CachedRecommendation[], now: Date): Promise<void> {
  const { userId, productGid, intent } = key;
  await db.query(
    `INSERT INTO shopify_recommendation_cache (user_id, product_id, intent, recommendations, fetched_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (user_id, product_id, intent) DO UPDATE SET recommendations = EXCLUDED.recommendations, fetched_at = EXCLUDED.fetched_at`,
    [userId, productGid, intent, JSON.stringify(recommendations), now],
  );
}
