import { z } from 'zod';
import { shopifyAdminGraphql, type ShopifyAdminConnection } from './shopify-admin.ts';

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

export const productQuery = `query ProductDetails($id: ID!) {
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
  const data = await shopifyAdminGraphql(connection, { query: productQuery, variables: { id: gid } }, productAnswerSchema, signal);
  if (!data.product) return null;
  const { title, description, onlineStoreUrl, featuredImage, priceRangeV2 } = data.product;
  const price = priceRangeV2?.minVariantPrice ?? null;
  // `description` is Shopify's plain-text rendering of descriptionHtml.
  return { title, description: description?.trim() || null, url: onlineStoreUrl ?? null, imageUrl: featuredImage?.url ?? null, price };
}
