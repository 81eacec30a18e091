import { randomBytes } from 'node:crypto';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { shopifyWebhookAddressProblem } from '../../shared/flows/flow-schemas.ts';

/**
 * A new flow id: 144 random bits, base64url (24 characters). A new flow's URL key is its
 * id, the only secret in its webhook URL, so it must be unguessable and say nothing
 * about other flows.
 */
export function newFlowId(): string {
  return randomBytes(18).toString('base64url');
}

/** The URL key "Rotate URL" gives a flow: as unguessable as an id, and unrelated to it. */
export function newWebhookKey(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * docs/product/specification.md §4: a doubled /api/api/webhooks/ becomes /api/webhooks/,
 * and /webhooks/ without /api in front becomes /api/webhooks/. Anything else is left as
 * it is.
 */
export function normaliseWebhookUrl(url: string): string {
  return url.replace(/(?:\/api)*\/webhooks\//, '/api/webhooks/');
}

/**
 * True when the URL is in one of the formats the normalisation of
 * docs/product/specification.md §4 rewrites.
 */
export function isOldFormatWebhookUrl(url: string): boolean {
  return normaliseWebhookUrl(url) !== url;
}

/**
 * The one canonical URL of a flow, made from its current URL key (the flow id until the
 * owner first rotates it). Normalised so that a PUBLIC_URL that already ends in /api (a
 * common slip behind proxies) still gives a single /api segment.
 */
export function webhookUrlFor(publicUrl: string, flowType: FlowType, webhookKey: string): string {
  return normaliseWebhookUrl(`${publicUrl.replace(/\/+$/, '')}/api/webhooks/${flowType}/${encodeURIComponent(webhookKey)}`);
}

/**
 * The address to register for a flow's Shopify webhooks: its webhook URL, when Shopify
 * takes it (an HTTPS URL, shopifyWebhookUriSchema); otherwise why not, for the owner.
 */
export function shopifyWebhookUrlFor(publicUrl: string, flowType: FlowType, webhookKey: string): { ok: true; url: string } | { ok: false; reason: string } {
  const url = webhookUrlFor(publicUrl, flowType, webhookKey);
  const problem = shopifyWebhookAddressProblem(url);
  return problem === null ? { ok: true, url } : { ok: false, reason: problem };
}
