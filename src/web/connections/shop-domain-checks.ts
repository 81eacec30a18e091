import { deferred } from '../app/deferred-resolver.ts';

/**
 * The shared schema of a shop's domain, which "Connect Shopify" checks before anything is
 * sent: fetched when a form that connects a store is first used, so the pages that show
 * one (API settings, the setup screen) load without zod.
 */
export const shopDomainChecks = deferred(async () => (await import('../../shared/credentials/credential-schemas.ts')).shopifyDomainSchema);
