/**
 * Page routes of the route table of docs/product/specification.md §2; the server serves
 * the web app for exactly these.
 */
export const pageRoutes = {
  dashboard: '/dashboard',
  login: '/auth/login',
  register: '/auth/register',
  forgotPassword: '/auth/forgot-password',
  resetPassword: '/auth/reset-password',
  verificationSent: '/auth/verification-sent',
  verify: '/auth/verify',
  setup: '/setup',
  apiSettings: '/settings/api',
  browserAbandonment: '/flows/browser-abandonment',
  abandonedCart: '/flows/abandoned-cart',
  abandonedCheckout: '/flows/abandoned-checkout',
  postPurchase: '/flows/post-purchase',
  sandboxProfiles: '/sandbox/profiles',
  privacy: '/settings/privacy',
  reviews: '/reviews',
} as const;

export const webhookPagePattern = '/api/webhooks/:flowType/:flowId';

/** The flow pages, one per flow, in the order pages list the flows. */
export const flowPageRoutes = [pageRoutes.browserAbandonment, pageRoutes.abandonedCart, pageRoutes.abandonedCheckout, pageRoutes.postPurchase] as const;

/**
 * The parts of a flow page opened on demand, each at its own address under the flow's
 * page (`/flows/abandoned-cart/preview`), so a link or the back button lands on it. The
 * page itself shows the flow's state, its last day and what needs the owner
 * (docs/decisions/0052-light-pages.md).
 */
export const flowSections = ['settings', 'assistants', 'store', 'preview', 'experiment', 'results', 'events'] as const;
export type FlowSection = (typeof flowSections)[number];

/** The search parameter that opens the Webhook Test Console on a flow page (`?console=1`). */
export const webhookConsoleParam = 'console';

/** The address of a flow page's section, or of the page itself for null. */
export function flowSectionPath(flowPagePath: string, section: FlowSection | null): string {
  return section ? `${flowPagePath}/${section}` : flowPagePath;
}
