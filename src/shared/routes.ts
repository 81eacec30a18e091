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
