import type { FlowType } from './flow-types.ts';

/**
 * Placeholders a prompt template may name. docs/product/specification.md §2 offers
 * {description}, {name} and {price}; docs/product/product-rules.md §3 adds the shopper
 * and order ones; {checkout_url} is filled from Shopify checkouts. The engine fills
 * exactly these, so a template naming anything else would reach the AI with a literal
 * "{…}" in it: it is refused instead.
 */
export const promptPlaceholders = [
  { token: '{description}', label: 'Product description' },
  { token: '{name}', label: 'Product name' },
  { token: '{price}', label: 'Product price' },
  { token: '{first_name}', label: "Shopper's first name" },
  { token: '{product_url}', label: 'Product page URL' },
  { token: '{total}', label: 'Cart, checkout or order total' },
  { token: '{currency}', label: 'Currency code' },
  { token: '{products}', label: 'List of products' },
  { token: '{checkout_url}', label: 'Link back to the checkout' },
  // The shopper, from what Flowsmith already holds (docs/decisions/0049-the-shopper-in-the-prompt.md):
  // filled in every flow, empty where there is nothing to say.
  { token: '{shopper_status}', label: 'New or returning customer', example: 'returning customer (3 earlier orders)' },
  { token: '{order_count}', label: 'Number of earlier orders', example: '3' },
  { token: '{last_order_date}', label: 'Date of the last earlier order', example: '2026-10-04' },
  { token: '{last_purchase}', label: 'What they bought last', example: 'Trail Runner 2; Wool Socks' },
  { token: '{viewed_products}', label: 'Products they looked at lately', example: 'Rain Jacket; Trail Runner 2' },
  // Klaviyo's predictive analytics of the profile, where the owner's account has them.
  { token: '{expected_next_order}', label: "Klaviyo's expected date of their next order", example: '2026-12-12' },
  { token: '{predicted_clv}', label: "Klaviyo's predicted customer lifetime value", example: '240.00' },
  { token: '{historic_clv}', label: "Klaviyo's historic customer lifetime value", example: '180.50' },
  { token: '{churn_risk}', label: "Klaviyo's churn risk", example: 'low (12 %)' },
  // Shopify's own recommendations for the event's product (docs/decisions/0050-recommendations-from-the-shop.md).
  { token: '{recommendations}', label: 'Products the shop would pair with it', example: 'Merino Beanie (24.00 USD); Trail Socks (12.00 USD)' },
] as const satisfies ReadonlyArray<{ token: string; label: string; example?: string }>;

export type PromptPlaceholder = (typeof promptPlaceholders)[number]['token'];

/**
 * The shopper's placeholders: their history in the owner's shop as Flowsmith received it,
 * and Klaviyo's predictive figures. Read only for a flow whose prompts name one of them.
 */
export const shopperHistoryPlaceholders = ['{shopper_status}', '{order_count}', '{last_order_date}', '{last_purchase}', '{viewed_products}'] as const satisfies readonly PromptPlaceholder[];
export const klaviyoPredictivePlaceholders = ['{expected_next_order}', '{predicted_clv}', '{historic_clv}', '{churn_risk}'] as const satisfies readonly PromptPlaceholder[];
/** Recommendations from the owner's shop, less what the shopper has in the cart or bought already. */
export const shopRecommendationPlaceholders = ['{recommendations}'] as const satisfies readonly PromptPlaceholder[];
/** Everything known of the shopper beyond the event: what an experiment arm can leave out. */
export const shopperContextPlaceholders: readonly PromptPlaceholder[] = [...shopperHistoryPlaceholders, ...klaviyoPredictivePlaceholders, ...shopRecommendationPlaceholders];
const shopperContextTokens = shopperContextPlaceholders;

/** An example of what a placeholder becomes, for the form's list; none for the event's own fields. */
export function placeholderExample(token: PromptPlaceholder): string | null {
  const found = promptPlaceholders.find((placeholder) => placeholder.token === token);
  return found && 'example' in found ? found.example : null;
}
export const promptPlaceholderTokens: readonly string[] = promptPlaceholders.map((placeholder) => placeholder.token);

/**
 * The placeholders each flow's events can fill, from what the engine's normaliser reads
 * of the sources that feed the flow (docs/product/product-rules.md §2):
 * - Browser abandonment: one viewed product (the sample's product and page_url, or a
 *   pixel's product_viewed whose name, description, price, currency and page come from
 *   the shop) and the shopper. A view has no total, list of products or checkout.
 * - Abandoned cart: the cart's products, total and currency (the sample, Shopify carts, the
 *   pixel's product_added_to_cart). A cart has no checkout link.
 * - Abandoned checkout and post purchase: everything, the link being the checkout's
 *   recovery page (abandoned_checkout_url) or the order's status page (order_status_url).
 * A placeholder outside its flow's list would always reach the AI empty.
 */
export const flowPlaceholderTokens: Record<FlowType, readonly PromptPlaceholder[]> = {
  browser_abandonment: ['{description}', '{name}', '{price}', '{first_name}', '{product_url}', '{currency}', ...shopperContextTokens],
  abandoned_cart: ['{description}', '{name}', '{price}', '{first_name}', '{product_url}', '{total}', '{currency}', '{products}', ...shopperContextTokens],
  abandoned_checkout: promptPlaceholders.map((placeholder) => placeholder.token),
  post_purchase: promptPlaceholders.map((placeholder) => placeholder.token),
};

/** Where a placeholder means something else in one flow than its general label says. */
const flowLabels: Partial<Record<FlowType, Partial<Record<PromptPlaceholder, string>>>> = {
  abandoned_cart: { '{total}': 'Cart total' },
  abandoned_checkout: { '{total}': 'Checkout total' },
  post_purchase: { '{total}': 'Order total', '{checkout_url}': "Link to the order's status page" },
};

/** The placeholders a flow offers, in the order of the full list, with their labels there. */
export function placeholdersOfFlow(flowType: FlowType): Array<{ token: PromptPlaceholder; label: string; example: string | null }> {
  const offered = flowPlaceholderTokens[flowType];
  return promptPlaceholders
    .filter((placeholder) => offered.includes(placeholder.token))
    .map((placeholder) => ({ token: placeholder.token, label: flowLabels[flowType]?.[placeholder.token] ?? placeholder.label, example: placeholderExample(placeholder.token) }));
}

/** Placeholders a template names that the engine knows but this flow's events never fill. */
export function placeholdersNotFilledIn(template: string, flowType: FlowType): string[] {
  const offered: readonly string[] = flowPlaceholderTokens[flowType];
  return placeholdersIn(template).filter((token) => promptPlaceholderTokens.includes(token) && !offered.includes(token));
}

/**
 * A placeholder is an identifier in single braces. Braces around anything else (JSON
 * examples, "{ }") are ordinary text and stay as written.
 */
const placeholderPattern = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Every placeholder a template names, each once, in order of first appearance. */
export function placeholdersIn(template: string): string[] {
  const found = new Set<string>();
  for (const match of template.matchAll(placeholderPattern)) found.add(match[0]);
  return [...found];
}

/** The placeholders a template names that the engine cannot fill. */
export function unknownPlaceholdersIn(template: string): string[] {
  return placeholdersIn(template).filter((token) => !promptPlaceholderTokens.includes(token));
}

/**
 * Replaces each known placeholder by its value; a placeholder without a value becomes
 * empty text rather than reaching the AI as "{…}".
 */
export function fillPromptTemplate(template: string, values: Partial<Record<PromptPlaceholder, string>>): string {
  return template.replace(placeholderPattern, (token) =>
    promptPlaceholderTokens.includes(token) ? (values[token as PromptPlaceholder] ?? '') : token,
  );
}

/**
 * Puts `token` into `text` in place of the selection `start`..`end` (the cursor when they
 * are equal) and says where the cursor goes next: right after the inserted token.
 */
export function insertAtCursor(text: string, start: number, end: number, token: string): { text: string; cursor: number } {
  const from = clamp(Math.min(start, end), 0, text.length);
  const to = clamp(Math.max(start, end), 0, text.length);
  return { text: text.slice(0, from) + token + text.slice(to), cursor: from + token.length };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
