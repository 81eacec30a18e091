import { z } from 'zod';
import { shopifyAdminGraphql, type ShopifyAdminConnection } from './shopify-admin.ts';

/**
 * The shop's catalogue, searched by title: whether a product a written text names is one
 * the shop sells. Every title found holds each word of the phrase (or a word beginning
 * with it), so any title found is one the phrase names; Shopify ranks them by relevance.
 */
export const productTitleSearchQuery = `query ProductTitleSearch($query: String!) {
  products(first: 5, query: $query, sortKey: RELEVANCE) { nodes { title } }
}`;

const productTitlesSchema = z.object({
  products: z.object({ nodes: z.array(z.object({ title: z.string() })) }),
});

/** Words that narrow nothing: every title has them or none needs them. */
const skippedWords = new Set('the a an of and or & de du des la le les di del della von van der y et und'.split(' '));
/** Enough to find a product; a longer phrase is a sentence, not a name. */
const mostWords = 6;

/**
 * A search of product titles holding every word of `phrase` (in any order, as the start
 * of a title's word, so "Jackets" finds "Jacket" and "Jacket" finds "Jackets"), in
 * Shopify's search syntax (https://shopify.dev/docs/api/usage/search-syntax): one
 * `title:` term a word, joined by the implied AND. Words are lower-cased, so none reads as
 * a connective (OR, NOT), and a word's own `\ : ( ) " ' *` are escaped with a backslash,
 * so no phrase adds a field, a group or a wildcard ("Mug:Blue" → `title:mug\:blue*`).
 * Null when the phrase has no word to search for.
 */
export function productTitleSearch(phrase: string): string | null {
  const terms = phrase
    .split(/\s+/u)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLowerCase())
    .filter((word) => (word.length > 1 || /\p{N}/u.test(word)) && !skippedWords.has(word))
    .slice(0, mostWords)
    .map((word) => `title:${stem(word).replace(/[\\:()"'*]/g, '\\$&')}*`);
  return terms.length > 0 ? terms.join(' ') : null;
}

/** A plural's "s" off, so the prefix search finds the singular too ("glasses" stays). */
function stem(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/** Up to five titles of the shop's products whose titles hold the phrase's words; none for a phrase without words. */
export async function searchShopifyProductTitles(connection: ShopifyAdminConnection, phrase: string, signal: AbortSignal): Promise<string[]> {
  const query = productTitleSearch(phrase);
  if (query === null) return [];
  const data = await shopifyAdminGraphql(connection, { query: productTitleSearchQuery, variables: { query } }, productTitlesSchema, signal);
  return data.products.nodes.map((node) => node.title);
}
