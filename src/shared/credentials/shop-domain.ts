/** Accepts what owners paste (`https://Name.myshopify.com/admin`) and keeps `name.myshopify.com`. */
export function normalizeShopDomain(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/[/?#].*$/, '');
}
