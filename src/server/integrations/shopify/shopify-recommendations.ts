import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService, type ServiceAnswer } from '../service-http.ts';
import { recommendationIntents, type RecommendationIntent } from '../../../shared/flows/recommendation-options.ts';

/**
 * Shopify's own product recommendations, from the shop's storefront: the Ajax API's
 * `GET /recommendations/products.json?product_id=…&intent=…&limit=…`
 * (docs/decisions/0032-vendor-definitions.md, "Shopify's product recommendations").
 * The endpoint is public, so no token is sent: it answers what any visitor of the online
 * store would see, products published to the online store only.
 */

/** `related` ("You may also like", Shopify's default) or `complementary` ("Pair it with", set up by the merchant). */

/** The most the storefront gives for one request (its `limit` is 1–10). */
export const MAX_STOREFRONT_RECOMMENDATIONS = 10;

export interface StorefrontRecommendation {
  /** gid://shopify/Product/N */
  gid: string;
  title: string;
  /** Absolute, on the storefront that answered; the path and its `pr_*` tracking parameters as Shopify gave them. */
  url: string;
  /** Absolute (the storefront's protocol-relative CDN addresses on https:), or null when the product has no image. */
  imageUrl: string | null;
  /** A decimal amount with two decimals ("24.00") in the storefront's currency. */
  price: string;
  /** Any variant can be bought. */
  available: boolean;
}

export interface StorefrontConnection {
  /** From shopifyShopUrl(): `https://{shop}`, or SHOPIFY_BASE_URL (tests, proxies). */
  shopUrl: string;
  /** The app's clock, for a Retry-After given as a date. */
  now?: () => Date;
  /** The call's time limit (default callService's). */
  timeoutMs?: number;
}

const recommendationsPath = '/recommendations/products.json';
/** A shop whose myshopify.com address sends visitors on to its own domain: followed this many times at most. */
const MAX_REDIRECTS = 2;

const imageSchema = z.union([z.string(), z.looseObject({ src: z.string().optional(), url: z.string().optional() }), z.null()]);

/** One product as the storefront's JSON has it; only what Flowsmith uses is required. */
const storefrontProductSchema = z.looseObject({
  // Exact digits: ids are read from the answer's text, not as a JavaScript number (see parseExactIds).
  id: z.union([z.string().regex(/^\d+$/), z.number().int().positive()]).transform(String),
  title: z.string().trim().min(1),
  url: z.string().min(1),
  /** Cents of the presentment currency. */
  price: z.number().int().nonnegative(),
  available: z.boolean(),
  featured_image: imageSchema.optional(),
  images: z.array(z.unknown()).optional(),
});

const answerSchema = z.looseObject({ intent: z.string().optional(), products: z.array(z.unknown()) });

/**
 * What the storefront recommends for `productGid` (a Shopify product gid or numeric id),
 * at most `limit` (1–10), in Shopify's order. A product the storefront does not know (not
 * published to the online store, deleted) has none: []. Other refusals, no answer in time
 * and an answer that cannot be read throw ServiceError; a single product that cannot be
 * read is left out.
 */
export async function fetchShopifyRecommendations(
  connection: StorefrontConnection,
  asked: { productGid: string; intent: RecommendationIntent; limit: number },
  signal: AbortSignal,
): Promise<StorefrontRecommendation[]> {
  const { productGid, intent, limit } = asked;
  const productId = /^(?:gid:\/\/shopify\/Product\/)?(\d+)$/.exec(productGid)?.[1];
  if (!productId) throw new RangeError(`not a Shopify product id: ${productGid}`);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_STOREFRONT_RECOMMENDATIONS) throw new RangeError(`the storefront gives 1 to ${MAX_STOREFRONT_RECOMMENDATIONS} recommendations, not ${limit}`);
  if (!recommendationIntents.includes(intent)) throw new RangeError(`not a recommendation intent: ${String(intent)}`);

  const query = new URLSearchParams({ product_id: productId, intent, limit: String(limit) });
  let url = `${connection.shopUrl.replace(/\/+$/, '')}${recommendationsPath}?${query}`;
  for (let redirects = 0; ; redirects += 1) {
    const answered = await askOnce(connection, url, signal);
    if (answered.kind === 'products') return answered.products;
    if (answered.kind === 'not_found') return [];
    if (redirects >= MAX_REDIRECTS) throw new ServiceError('shopify', 'invalid_response', 'the storefront kept redirecting', { status: answered.status });
    url = answered.location;
  }
}

type Answered =
  | { kind: 'products'; products: StorefrontRecommendation[] }
  | { kind: 'not_found' }
  | { kind: 'redirect'; location: string; status: number };

async function askOnce(connection: StorefrontConnection, url: string, signal: AbortSignal): Promise<Answered> {
  const request = { url, method: 'GET' as const, headers: { accept: 'application/json' }, signal, now: connection.now, timeoutMs: connection.timeoutMs };
  return callService('shopify', request, async (answer): Promise<Answered> => {
    if (answer.redirected) return { kind: 'redirect', location: followable(answer, url), status: answer.status };
    if (answer.status === 404) return { kind: 'not_found' };
    if (!answer.ok) throw answer.error(await refusalMessage(answer));
    const body = answerSchema.safeParse(parseExactIds(await answer.text(), answer.status));
    if (!body.success) throw new ServiceError('shopify', 'invalid_response', 'its recommendations could not be read (Shopify may be having trouble)', { status: answer.status });
    const origin = new URL(url).origin;
    return { kind: 'products', products: body.data.products.flatMap((product) => recommendationOf(product, origin) ?? []) };
  });
}

/**
 * A redirect is followed only where the storefront itself moved: a shop's myshopify.com
 * address sends visitors to its primary domain, same path and query. Anywhere else (its
 * password page, while the online store is closed) has no recommendations to give.
 */
function followable(answer: ServiceAnswer, from: string): string {
  const location = answer.response.headers.get('location');
  const target = location ? URL.parse(location, from) : null;
  if (!target || !/^https?:$/.test(target.protocol) || !target.pathname.endsWith(recommendationsPath)) {
    const where = target?.pathname === '/password' ? 'the online store is password-protected' : 'the storefront sent the request elsewhere';
    throw answer.error(`${where}, so it gives no recommendations`, 'not_found', 'permanent');
  }
  // Never from https down to http.
  if (new URL(from).protocol === 'https:' && target.protocol !== 'https:') throw answer.error('the storefront redirected to an insecure address', 'invalid_response');
  return target.toString();
}

/** The storefront's refusal, `{ status, message, description }`, as one line. */
async function refusalMessage(answer: ServiceAnswer): Promise<string> {
  const text = await answer.text().catch(() => '');
  try {
    const body = z.looseObject({ message: z.string().optional(), description: z.string().optional() }).parse(JSON.parse(text));
    const words = [body.message, body.description].filter(Boolean).join(': ');
    if (words) return `answered HTTP ${answer.status}: ${words.slice(0, 300)}`;
  } catch {
    // Not the storefront's JSON (a proxy's page): the status says enough.
  }
  return `answered HTTP ${answer.status}`;
}

/**
 * JSON with every `id` number kept as its exact digits: product ids may pass 2^53, where a
 * JavaScript number would silently round them into another product's id.
 */
function parseExactIds(text: string, status: number): unknown {
  try {
    return JSON.parse(text, (key, value: unknown, context?: { source?: string }) => (key === 'id' && typeof value === 'number' && context?.source ? context.source : value));
  } catch {
    throw new ServiceError('shopify', 'invalid_response', `answered HTTP ${status} without JSON`, { status });
  }
}

function recommendationOf(raw: unknown, origin: string): StorefrontRecommendation | null {
  const parsed = storefrontProductSchema.safeParse(raw);
  if (!parsed.success) return null;
  const product = parsed.data;
  const url = absoluteUrl(product.url, origin);
  if (!url) return null;
  const image = product.featured_image ?? product.images?.[0] ?? null;
  const imageText = typeof image === 'string' ? image : image && typeof image === 'object' ? ((image as { src?: string; url?: string }).src ?? (image as { url?: string }).url ?? null) : null;
  return {
    gid: `gid://shopify/Product/${product.id}`,
    title: product.title,
    url,
    imageUrl: imageText ? absoluteUrl(imageText, origin) : null,
    price: decimalOfCents(product.price),
    available: product.available,
  };
}

/**
 * An address as the storefront gives it, made absolute: a path ("/products/…") on the
 * storefront's origin, a protocol-relative CDN address ("//cdn.shopify.com/…") on https.
 * Null for anything else.
 */
function absoluteUrl(value: string, origin: string): string | null {
  if (value.startsWith('//')) return URL.parse(`https:${value}`)?.toString() ?? null;
  if (value.startsWith('/')) return URL.parse(value, origin)?.toString() ?? null;
  const url = URL.parse(value);
  return url && /^https?:$/.test(url.protocol) ? url.toString() : null;
}

/**
 * Cents as a decimal with two decimals (2400 → "24.00"). The Ajax API states every
 * price in hundredths of the currency's unit; for a currency without decimals (JPY, KRW)
 * that reading is wrong by a factor of 100. Such shops are out of scope for now: the
 * currency is learned from the Admin API later, and this is where it would be applied.
 */
export function decimalOfCents(cents: number): string {
  const whole = Math.trunc(cents / 100);
  return `${whole}.${String(cents - whole * 100).padStart(2, '0')}`;
}
