/**
 * The day counts of revenue attribution (docs/decisions/0030-revenue-attribution.md): the
 * window after a delivery within which an order is credited to it, and the periods the
 * figures are given for.
 */
export const DEFAULT_ATTRIBUTION_WINDOW_DAYS = 5;
export const MIN_ATTRIBUTION_WINDOW_DAYS = 1;
export const MAX_ATTRIBUTION_WINDOW_DAYS = 30;

/** The periods the figures are given for. */
export const revenuePeriods = [7, 30] as const;
export type RevenuePeriod = (typeof revenuePeriods)[number];
