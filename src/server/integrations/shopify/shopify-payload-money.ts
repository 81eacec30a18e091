import { z } from 'zod';

/**
 * Which currency a Shopify webhook's amounts are in (docs/product/service-contracts.md
 * §4, and the Order and Checkout REST resources of @shopify/shopify-api):
 * - an order's `total_price` and line `price` are in the shop's currency (`currency`);
 *   `total_price_set` / `price_set` hold both the shop's money and the buyer's
 *   (`presentment_money`, in `presentment_currency`);
 * - a checkout's prices are in the buyer's currency (`presentment_currency`).
 * An order's `total_price` is never labelled with `presentment_currency`: 100.00 USD is
 * not 100.00 EUR. What the shopper saw is the presentment money; what the shop earned,
 * the shop money (docs/decisions/0010-shopify.md).
 */
export interface Money {
  /** A decimal amount as Shopify wrote it ("92.00"). */
  amount: string;
  currency: string | null;
}

const amount = z.union([z.number().finite(), z.string().trim().regex(/^-?\d+(\.\d+)?$/)]).transform(String);
const currency = z.string().trim().min(1).max(10);
const money = z.object({ amount, currency_code: currency.nullish() });
/** Read loosely: a malformed set is treated as absent, never as another currency's amount. */
const moneySet = z.object({ shop_money: money.nullish().catch(null), presentment_money: money.nullish().catch(null) }).nullish().catch(null);
const lineItem = z.object({ price: amount.nullish().catch(null), price_set: moneySet }).passthrough();
const payload = z
  .object({
    total_price: amount.nullish().catch(null),
    total_price_set: moneySet,
    currency: currency.nullish().catch(null),
    presentment_currency: currency.nullish().catch(null),
    line_items: z.array(lineItem.catch({ price: null, price_set: null })).nullish().catch(null),
  })
  .passthrough();

type MoneySet = z.infer<typeof moneySet>;

function fromSet(set: MoneySet, side: 'shop_money' | 'presentment_money'): Money | null {
  const value = set?.[side];
  return value ? { amount: value.amount, currency: value.currency_code ?? null } : null;
}

export interface OrderMoney {
  /** What the shop earned, in the shop's currency. */
  shop: Money | null;
  /** What the buyer paid, in their currency; the shop's money when the order names no other. */
  buyer: Money | null;
  /** Each line's price in the buyer's currency, by index; null where it cannot be known. */
  buyerLinePrices: Array<string | null>;
}

export function orderMoney(body: unknown): OrderMoney {
  const parsed = payload.safeParse(body);
  if (!parsed.success) return { shop: null, buyer: null, buyerLinePrices: [] };
  const order = parsed.data;
  const shop = fromSet(order.total_price_set, 'shop_money') ?? (order.total_price ? { amount: order.total_price, currency: order.currency ?? null } : null);
  const presentment = fromSet(order.total_price_set, 'presentment_money');
  const buyer = presentment ?? shop;
  // A line's shop price is the buyer's only when the buyer paid in the shop's currency.
  const sameCurrency = buyer?.currency !== null && buyer?.currency !== undefined && buyer.currency === shop?.currency;
  const buyerLinePrices = (order.line_items ?? []).map((line) => fromSet(line.price_set, 'presentment_money')?.amount ?? (sameCurrency || !presentment ? (line.price ?? null) : null));
  return { shop, buyer, buyerLinePrices };
}

/** A checkout's (or cart's) total and currency: its prices are already in the buyer's currency. */
export function checkoutMoney(body: unknown): { amount: string | null; currency: string | null } {
  const parsed = payload.safeParse(body);
  if (!parsed.success) return { amount: null, currency: null };
  const checkout = parsed.data;
  const presentment = fromSet(checkout.total_price_set, 'presentment_money');
  return {
    amount: checkout.total_price ?? presentment?.amount ?? null,
    currency: checkout.presentment_currency ?? presentment?.currency ?? checkout.currency ?? null,
  };
}
