import { z } from 'zod';
import { IntegrationError, errorForStatus, readJson, requestService } from '../integration-error.ts';

/** The Admin API version every call names (stable versions are quarterly). */
export const SHOPIFY_API_VERSION = '2026-10';

/** Where one shop's Admin API lives: `https://{shop}`, or SHOPIFY_BASE_URL when set (tests, proxies). */
export function shopifyShopUrl(configuredBaseUrl: string | undefined, shopDomain: string): string {
  return configuredBaseUrl ?? `https://${shopDomain}`;
}

export interface ShopifyAdminConnection {
  /** From shopifyShopUrl(). */
  shopUrl: string;
  accessToken: string;
}

const graphqlAnswerSchema = z.looseObject({
  data: z.unknown().optional(),
  errors: z.union([z.array(z.looseObject({ message: z.string() })), z.string(), z.record(z.string(), z.unknown())]).optional(),
});

/**
 * One Admin GraphQL call, its `data` parsed with `schema`. 3xx (no shop at that address)
 * counts as not found; GraphQL `errors` become an invalid answer.
 */
export async function shopifyAdminGraphql<T>(
  connection: ShopifyAdminConnection,
  query: string,
  variables: Record<string, unknown>,
  schema: z.ZodType<T>,
  signal: AbortSignal,
): Promise<T> {
  const response = await requestService(
    'shopify',
    `${connection.shopUrl}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
    {
      method: 'POST',
      headers: { 'x-shopify-access-token': connection.accessToken, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    },
    signal,
  );
  if (response.status >= 300 && response.status < 400) {
    throw new IntegrationError('shopify', 'not_found', 'no shop answers at this address', { status: response.status });
  }
  if (!response.ok) throw errorForStatus('shopify', response);
  const answer = graphqlAnswerSchema.safeParse(await readJson('shopify', response));
  if (!answer.success) throw new IntegrationError('shopify', 'invalid_response', 'the GraphQL answer did not have the expected shape', { status: response.status });
  if (answer.data.errors !== undefined) {
    const errors = answer.data.errors;
    const detail = Array.isArray(errors) ? errors.map((error) => error.message).join('; ') : typeof errors === 'string' ? errors : 'GraphQL errors';
    throw new IntegrationError('shopify', 'invalid_response', detail.slice(0, 300), { status: response.status });
  }
  const data = schema.safeParse(answer.data.data);
  if (!data.success) throw new IntegrationError('shopify', 'invalid_response', 'the GraphQL data did not have the expected shape', { status: response.status });
  return data.data;
}

const shopSchema = z.looseObject({ shop: z.looseObject({ name: z.string(), myshopifyDomain: z.string() }) });

/** The cheap check of INTEGRATIONS.md: the token may read the shop. */
export async function fetchShop(connection: ShopifyAdminConnection, signal: AbortSignal): Promise<{ name: string; myshopifyDomain: string }> {
  const data = await shopifyAdminGraphql(connection, '{ shop { name myshopifyDomain } }', {}, shopSchema, signal);
  return data.shop;
}
