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

/** How often a store that refused the token is asked again (the periodic re-check). */
export const STORE_RECHECK_MINUTES = 5;

/** Each condition's words: what it is, what it costs, and what fixes it. */
export const serviceConditionMessages = {
  title: {
    klaviyo_bulk_refused: 'Klaviyo writes profiles one at a time',
    shopify_refused: 'Your Shopify store refuses Flowsmith',
    openai_model_unavailable: (model: string) => `OpenAI no longer serves "${model}"`,
    openai_quota: 'Your OpenAI account has no quota left',
    shopify_uninstalled: 'Your Shopify store is not connected',
    klaviyo_disconnected: 'Klaviyo is not connected',
  },
  cause: {
    klaviyo_bulk_refused: (detail: string) =>
      `The saved Klaviyo key may not run bulk import jobs, which need the Lists permission as well as Profiles (${detail}). Under a backlog every profile is written on its own instead: slower, and closer to Klaviyo's rate limits.`,
    shopify_refused: (detail: string) =>
      `The store refused the saved credentials (${detail}). Product details and the catalogue check wait for it; Flowsmith no longer asks the store for each event, only once every ${STORE_RECHECK_MINUTES} minutes.`,
    openai_model_unavailable: (detail: string) => `Texts written with this model fail (${detail}).`,
    openai_quota: (detail: string) => `OpenAI refuses every text until the account has quota again (${detail}).`,
    shopify_uninstalled: (detail: string) => `${detail} No texts are written and nothing is delivered for the shop's events; they wait and go out once the store is connected again.`,
    klaviyo_disconnected: (detail: string) => `${detail} Nothing is delivered to Klaviyo; texts wait and go out once Klaviyo is connected again.`,
  },
  fix: {
    klaviyo_bulk_refused:
      'In Klaviyo (Settings → API keys), give the private key Lists: Full Access, or save a key that has it in API Settings. This goes away with the next bulk job Klaviyo accepts.',
    shopify_refused:
      "Reconnect the store: check that the app is still installed with its access, and save working Shopify credentials in API Settings. This goes away once the store answers again.",
    openai_model_unavailable:
      'Pick another model in API Settings (the default model) or on the assistants that name it under Configure Flow, then replay the failed events from the event log.',
    openai_quota:
      "Add credit or raise the limit in OpenAI's billing settings, then replay the failed events from the event log. This goes away with the next text OpenAI writes.",
    shopify_uninstalled: 'Connect the store again under API Settings (Connect Shopify); your flows are kept. This goes away once it is connected.',
    klaviyo_disconnected: 'Connect Klaviyo again under API Settings (Connect Klaviyo), or save a private API key. This goes away once it is connected.',
  },
  fixLink: 'Open API Settings',
} as const;

/** The condition's title in words. */
export function serviceConditionTitle(condition: Pick<ServiceCondition, 'kind' | 'subject'>): string {
  const title = serviceConditionMessages.title[condition.kind];
  return typeof title === 'function' ? title(condition.subject) : title;
}
