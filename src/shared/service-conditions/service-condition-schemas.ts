import { z } from 'zod';

/**
 * A condition of one of the owner's services that makes every later event slower, dearer
 * or fail, until the owner fixes it (docs/decisions/0047-service-conditions.md). Shown once
 * on the dashboard and on every flow page with its cause and its fix; it goes by itself
 * when the service answers again, or when the owner changes what it depends on.
 *
 * - `klaviyo_bulk_refused`: the Klaviyo key may not run bulk import jobs (they need the
 *   Lists permission as well as Profiles), so a backlog is written one profile at a time.
 * - `shopify_refused`: the store refused the saved token (401, 403) or is not found (404);
 *   it is not asked again for every event, only by a periodic re-check.
 * - `openai_model_unavailable`: OpenAI no longer serves a model a flow uses (`subject`).
 * - `openai_quota`: the OpenAI account has no quota left (insufficient_quota).
 * - `shopify_uninstalled`: the shop uninstalled the deployment's Shopify app, or its
 *   renewal was refused for good; generation and deliveries wait until it is reconnected.
 * - `klaviyo_disconnected`: the Klaviyo connection (OAuth) was disconnected or its renewal
 *   refused for good; deliveries wait until it is reconnected.
 */
export const serviceConditionKinds = ['klaviyo_bulk_refused', 'shopify_refused', 'openai_model_unavailable', 'openai_quota', 'shopify_uninstalled', 'klaviyo_disconnected'] as const;
export type ServiceConditionKind = (typeof serviceConditionKinds)[number];

export const serviceConditionSchema = z.object({
  kind: z.enum(serviceConditionKinds),
  /** What the condition is about where there can be several: the model; '' otherwise. */
  subject: z.string(),
  /** The service's own words. */
  detail: z.string(),
  since: z.string(),
  lastAt: z.string(),
});
export type ServiceCondition = z.infer<typeof serviceConditionSchema>;

export const serviceConditionsResponseSchema = z.object({ conditions: z.array(serviceConditionSchema) });
