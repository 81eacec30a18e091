/**
 * The browsing pixel card's texts (docs/product/product-rules.md §2, issue 7); the
 * specified screens have no such feature.
 */
export const pixelMessages = {
  title: 'Shopify browsing pixel',
  description: "Shopify sends no webhook for product views. This custom pixel sends them to this flow, with the shopper's add-to-carts and started checkouts.",
  stepsTitle: 'Where to paste it',
  steps: [
    'In your Shopify admin, open Settings → Customer events.',
    'Choose Add custom pixel and give it a name, such as Flowsmith.',
    'Replace the code in the editor with the code below.',
    'Save, then choose Connect so the pixel starts running.',
  ],
  loggedInOnly: "Only logged-in shoppers' views can reach a Klaviyo profile: for a guest, Shopify gives the pixel no email.",
  /** `wait` as describeWait gives it ("30 minutes"). */
  cancelledBy: (wait: string | null) =>
    `When the shopper adds to cart, starts a checkout or places an order within the flow's wait${wait ? ` (${wait})` : ''}, no browse abandonment message is sent.`,
  codeLabel: 'Pixel code for this flow',
  loading: 'Loading the pixel code',
  loadFailed: 'Could not load the pixel code',
  retry: 'Retry',
  copy: 'Copy pixel code',
  copied: 'Pixel code copied to clipboard',
  copyFailed: 'Failed to copy pixel code',
} as const;
