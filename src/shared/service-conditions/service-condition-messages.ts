import type { ServiceCondition } from './service-condition-schemas.ts';

/*
 * What the owner reads about a service condition (docs/decisions/0047-service-conditions.md),
 * on the dashboard, the flow pages and in mail.
 */

/** How often a store that refused the token is asked again (the periodic re-check); the owner is told it. */
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
