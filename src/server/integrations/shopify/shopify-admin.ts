import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';

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
  /** The app's clock, for a Retry-After given as a date. */
  now?: () => Date;
}

const graphqlAnswerSchema = z.looseObject({
  data: z.unknown().optional(),
  errors: z
    .union([z.array(z.looseObject({ message: z.string(), extensions: z.looseObject({ code: z.string().optional() }).optional() })), z.string(), z.record(z.string(), z.unknown())])
    .optional(),
});

/**
 * One Admin GraphQL call, its `data` parsed with `schema`. 3xx (no shop at that address)
 * counts as not found; GraphQL `errors` become an invalid answer.
 */
export async function shopifyAdminGraphql<T>(
  connection: ShopifyAdminConnection,
  operation: { query: string; variables: Record<string, unknown> },
  schema: z.ZodType<T>,
  signal: AbortSignal,
): Promise<T> {
  const { query, variables } = operation;
  const request = {
    url: `${connection.shopUrl}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
    method: 'POST' as const,
    headers: { 'x-shopify-access-token': connection.accessToken, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal,
    now: connection.now,
  };
  return callService('shopify', request, async (answer) => {
    if (answer.redirected) throw answer.error('no shop answers at this address', 'not_found');
    if (!answer.ok) throw answer.error();
    const body = graphqlAnswerSchema.safeParse(await answer.json());
    if (!body.success) throw new ServiceError('shopify', 'invalid_response', 'its answer could not be read (Shopify may be having trouble)', { status: answer.status });
    if (body.data.errors !== undefined) {
      const errors = body.data.errors;
      const detail = Array.isArray(errors) ? errors.map((error) => error.message).join('; ') : typeof errors === 'string' ? errors : 'GraphQL errors';
      // A field or webhook topic the token's access scopes do not cover: the owner's app
      // settings, not an outage, and asking again changes nothing.
      if (Array.isArray(errors) && errors.some((error) => error.extensions?.code === 'ACCESS_DENIED')) {
        throw new ServiceError('shopify', 'forbidden', detail.slice(0, 300), { status: answer.status });
      }
      throw new ServiceError('shopify', 'invalid_response', detail.slice(0, 300), { status: answer.status });
    }
    const data = schema.safeParse(body.data.data);
    if (!data.success) throw new ServiceError('shopify', 'invalid_response', 'its answer could not be read (Shopify may be having trouble)', { status: answer.status });
    return data.data;
  });
}

const shopSchema = z.looseObject({ shop: z.looseObject({ name: z.string(), myshopifyDomain: z.string() }) });

/** The cheap check of docs/product/service-contracts.md §4: the token may read the shop. */
export async function fetchShop(connection: ShopifyAdminConnection, signal: AbortSignal): Promise<{ name: string; myshopifyDomain: string }> {
  const data = await shopifyAdminGraphql(connection, { query: '{ shop { name myshopifyDomain } }', variables: {} }, shopSchema, signal);
  return data.shop;
}

const grantedScopesSchema = z.looseObject({ currentAppInstallation: z.looseObject({ accessScopes: z.array(z.looseObject({ handle: z.string() })) }) });

/** The access scopes the token's app was granted on this store (needs no scope itself). */
export async function fetchGrantedScopes(connection: ShopifyAdminConnection, signal: AbortSignal): Promise<string[]> {
  const data = await shopifyAdminGraphql(connection, { query: '{ currentAppInstallation { accessScopes { handle } } }', variables: {} }, grantedScopesSchema, signal);
  return data.currentAppInstallation.accessScopes.map((scope) => scope.handle);
}
