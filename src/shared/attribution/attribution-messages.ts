import { MAX_ATTRIBUTION_WINDOW_DAYS, MIN_ATTRIBUTION_WINDOW_DAYS } from './attribution-periods.ts';

/** What owners read about revenue recovered and the attribution window. */
export const attributionMessages = {
  heading: 'Revenue recovered',
  intro: (windowDays: number) =>
    `Orders placed within ${windowDays} ${windowDays === 1 ? 'day' : 'days'} of a delivery, credited to the most recent delivery to that shopper. Currencies are listed apart, never added together.`,
  loadFailed: 'The revenue figures could not be loaded',
  noRevenue: 'No attributed orders yet',
  noOrders: 'No order has been credited to a delivery in this period.',
  ordersHeading: 'Attributed orders',
  openDelivery: 'Open delivery',
  deliveryDeleted: 'Delivery no longer kept',
  periodLabel: 'Period',
  periods: { 7: 'Last 7 days', 30: 'Last 30 days' } as const,
  figures: {
    deliveries: 'Deliveries',
    attributedOrders: 'Attributed orders',
    revenue: 'Revenue',
    conversionRate: 'Conversion rate',
    cost: 'OpenAI cost',
    tokens: 'Tokens',
  },
  windowHeading: 'Attribution window',
  windowLabel: 'Days after a delivery an order is credited to it',
  windowHint: `From ${MIN_ATTRIBUTION_WINDOW_DAYS} to ${MAX_ATTRIBUTION_WINDOW_DAYS} days; 5 unless you change it. It applies to orders that arrive from now on.`,
  windowSaved: 'Attribution window saved',
  windowInvalid: `Enter a whole number of days from ${MIN_ATTRIBUTION_WINDOW_DAYS} to ${MAX_ATTRIBUTION_WINDOW_DAYS}.`,
  save: 'Save',
};
