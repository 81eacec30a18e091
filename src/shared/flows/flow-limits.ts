/*
 * The limits of a flow's configuration, apart from the schemas that enforce them
 * (flow-schemas.ts): the flow page shows them beside its fields, and its first view loads
 * without zod.
 */

export const MAX_ASSISTANTS_PER_FLOW = 20;
/**
 * The most properties Klaviyo takes on one event: "must not exceed 400 properties" (Klaviyo
 * OpenAPI, revision 2026-07-15, as the klaviyo-api SDK carries it:
 * EventCreateQueryV2ResourceObjectAttributes.properties). A flow's Klaviyo event carries
 * its assistants' texts and its experiment's two properties, far fewer.
 */
export const KLAVIYO_MAX_EVENT_PROPERTIES = 400;
export const MAX_ASSISTANT_NAME_LENGTH = 100;
/**
 * Klaviyo's definition sets no limit on a profile property's name (Klaviyo OpenAPI,
 * ProfileUpsertQueryResourceObject.attributes.properties: "key/value pairs for any custom
 * properties"). The length, the characters and the `$` rule (flow-schemas.ts) are
 * Flowsmith's own: these names are typed by hand into Klaviyo's template language
 * (docs/decisions/0006-assistant-properties.md).
 */
export const MAX_KLAVIYO_PROPERTY_LENGTH = 100;
export const MAX_PROMPT_TEMPLATE_LENGTH = 4000;
/** Room for a brand-voice guide: the fixed part of the prompt is served from OpenAI's cache, so length costs little (docs/decisions/0021-one-call-per-model.md). */
export const MAX_INSTRUCTIONS_LENGTH = 8000;
export const MAX_MODEL_LENGTH = 100;
/**
 * The longest Klaviyo event name (the metric Flowsmith's event is recorded under): Klaviyo
 * OpenAPI, revision 2026-07-15 (klaviyo-api SDK), MetricCreateQueryResourceObject.attributes.name,
 * "Name of the event. Must be less than 128 characters." Counted in UTF-16 units, never
 * fewer than Klaviyo's characters.
 */
export const MAX_KLAVIYO_EVENT_NAME_LENGTH = 127;
/** The flows table's bounds (migration 011): 0 turns the per-shopper limit off; 720 hours is 30 days. */
export const MAX_SHOPPER_COOLDOWN_HOURS = 720;
export const MIN_DAILY_GENERATION_CAP = 1;
export const MAX_REUSE_WINDOW_HOURS = 720;
export const MAX_DAILY_BUDGET_USD = 100_000;
export const MAX_DAILY_GENERATION_CAP = 1_000_000;
