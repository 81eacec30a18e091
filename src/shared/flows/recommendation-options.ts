/*
 * What the owner chooses of a flow's recommendations from the shop
 * (docs/decisions/0050-recommendations-from-the-shop.md), apart from the schemas
 * (recommendation-schemas.ts, flow-schemas.ts): the flow page offers these choices, and
 * its first view loads without zod.
 */

/** Shopify's two recommendation intents: similar products ("You may also like") and add-ons ("Pair it with"). */
export const recommendationIntents = ['related', 'complementary'] as const;
export type RecommendationIntent = (typeof recommendationIntents)[number];

/** At most this many per event: a handful reads as a suggestion, more as a catalogue. */
export const MAX_RECOMMENDATIONS = 4;
export const DEFAULT_RECOMMENDATIONS = 3;
