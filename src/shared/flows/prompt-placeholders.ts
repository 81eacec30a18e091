/**
 * Placeholders a prompt template may name. SPEC.md offers {description}, {name} and
 * {price}; PRODUCT.md section 3 adds the shopper and order ones; {checkout_url} is filled
 * from Shopify checkouts. The engine fills exactly these, so a template naming anything
 * else would reach the AI with a literal "{…}" in it: it is refused instead.
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
] as const;

export type PromptPlaceholder = (typeof promptPlaceholders)[number]['token'];
export const promptPlaceholderTokens: readonly string[] = promptPlaceholders.map((placeholder) => placeholder.token);

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
