/**
 * The sample shop of the sandbox: a small catalog its Admin API stand-in answers
 * product look-ups from, and the sample shoppers whose activity the owner can send.
 * Product ids are far above any real shop's so a cached sample product is never taken
 * for a real one (docs/decisions/0026-sandbox.md).
 */
export const SAMPLE_SHOP_DOMAIN = 'flowsmith-sample-shop.myshopify.com';
export const SAMPLE_SHOP_URL = 'https://flowsmith-sample-shop.example';
export const SAMPLE_CURRENCY = 'EUR';

export interface SampleProduct {
  id: string;
  title: string;
  description: string;
  price: string;
  handle: string;
  imageUrl: string | null;
}

export const sampleProducts: SampleProduct[] = [
  {
    id: '9900000000000001',
    title: 'Alpine Merino Beanie',
    description: 'A soft, breathable merino wool beanie knitted in the Alps. Warm on cold mornings, never itchy.',
    price: '34.00',
    handle: 'alpine-merino-beanie',
    imageUrl: null,
  },
  {
    id: '9900000000000002',
    title: 'Trailhead Insulated Bottle',
    description: 'A 750 ml steel bottle that keeps drinks cold for 24 hours and hot for 12. Leak-proof lid.',
    price: '29.50',
    handle: 'trailhead-insulated-bottle',
    imageUrl: null,
  },
  {
    id: '9900000000000003',
    title: 'Summit Down Jacket',
    description: 'A light 800-fill down jacket that packs into its own pocket. Water-repellent shell, recycled lining.',
    price: '229.00',
    handle: 'summit-down-jacket',
    imageUrl: null,
  },
  {
    id: '9900000000000004',
    title: 'Ridge Trail Running Shoes',
    description: 'Grippy, cushioned trail shoes with a rock plate and a quick-lace system, for long days on rough ground.',
    price: '139.00',
    handle: 'ridge-trail-running-shoes',
    imageUrl: null,
  },
  {
    id: '9900000000000005',
    title: 'Basecamp Camping Mug',
    description: 'An enamel steel mug with a matte finish. Goes on the stove, survives the backpack.',
    price: '14.00',
    handle: 'basecamp-camping-mug',
    imageUrl: null,
  },
];

export function sampleProductGid(product: SampleProduct): string {
  return `gid://shopify/Product/${product.id}`;
}

export function sampleProductUrl(product: SampleProduct): string {
  return `${SAMPLE_SHOP_URL}/products/${product.handle}`;
}

export interface SampleShopper {
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * One shopper per flow, so one flow's sample activity never ends another's timer (an
 * order of the same shopper would end their abandoned checkout). Their addresses use the
 * reserved example domain: nothing could ever be mailed to them.
 */
export const sampleShoppers = {
  browser_abandonment: { email: 'mia.browser@example.com', firstName: 'Mia', lastName: 'Keller' },
  abandoned_cart: { email: 'noah.cart@example.com', firstName: 'Noah', lastName: 'Brandt' },
  abandoned_checkout: { email: 'lena.checkout@example.com', firstName: 'Lena', lastName: 'Vogel' },
  post_purchase: { email: 'jonas.order@example.com', firstName: 'Jonas', lastName: 'Weber' },
} as const satisfies Record<string, SampleShopper>;
