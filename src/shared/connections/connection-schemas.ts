import { z } from 'zod';
import { shopifyDomainSchema } from '../credentials/credential-schemas.ts';

/**
 * The contract between the browser and the connections API
 * (docs/decisions/0048-connect-by-oauth.md): which one-click connections the deployment
 * offers, and how each of the owner's services is connected now.
 */

/** A Shopify connection's state: connected, uninstalled from the shop, or its renewal refused for good. */
export const shopifyConnectionStates = ['connected', 'uninstalled', 'renewal_refused'] as const;
export const klaviyoConnectionStates = ['connected', 'renewal_refused'] as const;

export const shopifyConnectionSchema = z.object({
  shopDomain: z.string(),
  shopName: z.string().nullable(),
  scopes: z.array(z.string()),
  state: z.enum(shopifyConnectionStates),
  /** Why it is not connected, in words; null while connected. */
  problem: z.string().nullable(),
  connectedAt: z.string(),
  /** When the access token was last renewed; null before the first renewal. */
  renewedAt: z.string().nullable(),
  accessTokenExpiresAt: z.string().nullable(),
});
export type ShopifyConnectionStatus = z.output<typeof shopifyConnectionSchema>;

export const klaviyoConnectionSchema = z.object({
  accountId: z.string(),
  accountName: z.string().nullable(),
  scopes: z.array(z.string()),
  state: z.enum(klaviyoConnectionStates),
  problem: z.string().nullable(),
  connectedAt: z.string(),
  renewedAt: z.string().nullable(),
  accessTokenExpiresAt: z.string().nullable(),
});
export type KlaviyoConnectionStatus = z.output<typeof klaviyoConnectionSchema>;

export const connectionsResponseSchema = z.object({
  /** Which services this deployment connects by OAuth (its operator set up an app there). */
  offered: z.object({ shopify: z.boolean(), klaviyo: z.boolean() }),
  shopify: shopifyConnectionSchema.nullable(),
  klaviyo: klaviyoConnectionSchema.nullable(),
});
export type ConnectionsResponse = z.output<typeof connectionsResponseSchema>;

/** The app's pages an owner may come back to after approving a connection. */
export const connectionReturnPages = ['/setup', '/settings/api'] as const;
export const connectionReturnPageSchema = z.enum(connectionReturnPages).default('/settings/api');

export const startShopifyConnectionSchema = z.object({ shop: shopifyDomainSchema, returnTo: connectionReturnPageSchema });
export type StartShopifyConnectionInput = z.input<typeof startShopifyConnectionSchema>;
export const startKlaviyoConnectionSchema = z.object({ returnTo: connectionReturnPageSchema });
export type StartKlaviyoConnectionInput = z.input<typeof startKlaviyoConnectionSchema>;

/** Where the browser goes next: the service's consent page. */
export const startConnectionResponseSchema = z.object({ authorizeUrl: z.string() });

export const disconnectResponseSchema = z.object({ disconnected: z.literal(true), revoked: z.boolean() });
