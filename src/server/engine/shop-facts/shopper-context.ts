import type { EventRecord } from '../../events/event-queries.ts';
import { listShopperHistory, type ShopperHistoryEvent } from '../../events/shopper-history-queries.ts';
import { isOrder } from '../../attribution/order-attribution.ts';
import { findPredictiveAnalytics, type PredictiveAnalytics } from '../../integrations/klaviyo/klaviyo-profiles.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { klaviyoPredictivePlaceholders, shopperHistoryPlaceholders, shopRecommendationPlaceholders, placeholdersIn } from '../../../shared/flows/prompt-placeholders.ts';
import type { RecommendationSettings } from '../../../shared/flows/flow-schemas.ts';
import { ownedProducts, recommendationsFor, recommendationsInWords } from './shop-recommendations.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type { Assistant } from '../../../shared/flows/flow-schemas.ts';
import type { EngineCredentials } from '../spine/engine-credentials.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';
import type { EventToWrite, ShopperContextValues } from '../writing/prompt-rendering.ts';
import { klaviyoConnection, takeSlot } from '../delivery/klaviyo-delivery.ts';

/**
 * The shopper in the prompt (docs/decisions/0049-the-shopper-in-the-prompt.md): their
 * history in the owner's shop as Flowsmith received it, and Klaviyo's predictive figures
 * of their profile. Read only when one of the flow's prompts names a placeholder that
 * needs it, and only for this event's prompts: nothing of it is stored.
 */

/** How far back the history reaches (the owner's retention period usually ends it sooner). */
export const SHOPPER_HISTORY_DAYS = 730;
/** "Lately": products looked at within this many days before the event. */
export const VIEWED_WITHIN_DAYS = 7;
const MAX_PRODUCTS_NAMED = 5;
const DAY_MS = 24 * 60 * 60_000;

const historyTokens: readonly string[] = shopperHistoryPlaceholders;
const predictiveTokens: readonly string[] = klaviyoPredictivePlaceholders;
const recommendationTokens: readonly string[] = shopRecommendationPlaceholders;

/** Which parts of the shopper the templates ask for. */
export function shopperPartsNamedIn(templates: Array<string | null | undefined>): { history: boolean; predictive: boolean; recommendations: boolean } {
  const named = new Set(templates.flatMap((template) => (template ? placeholdersIn(template) : [])));
  return {
    history: [...named].some((token) => historyTokens.includes(token)),
    predictive: [...named].some((token) => predictiveTokens.includes(token)),
    recommendations: [...named].some((token) => recommendationTokens.includes(token)),
  };
}

const names = (products: NormalizedEvent['products']) => products.map((product) => product.name?.trim()).filter((name): name is string => Boolean(name));
const dayOf = (iso: string | null | undefined, fallback: Date) => {
  const date = iso ? new Date(iso) : fallback;
  return (Number.isNaN(date.getTime()) ? fallback : date).toISOString().slice(0, 10);
};

/**
 * The history placeholders from the shopper's earlier events (newest first): orders are
 * Shopify's order webhooks and a generic sender's purchases, one per checkout; looked-at
 * products are those of browsing and cart events in the last days, other than the event's
 * own. No earlier order: a new customer.
 */
export function describeShopperHistory(history: ShopperHistoryEvent[], current: { products: NormalizedEvent['products']; receivedAt: Date }): ShopperContextValues {
  const seenOrders = new Set<string>();
  const orders = history.filter((event) => {
    if (!isOrder(event, event.normalized)) return false;
    const key = event.normalized.checkoutToken ?? event.id;
    if (seenOrders.has(key)) return false;
    seenOrders.add(key);
    return true;
  });
  const last = orders[0];
  const own = new Set(names(current.products).map((name) => name.toLowerCase()));
  const lately = current.receivedAt.getTime() - VIEWED_WITHIN_DAYS * DAY_MS;
  const viewed: string[] = [];
  for (const event of history) {
    if (event.receivedAt.getTime() < lately || isOrder(event, event.normalized)) continue;
    if (event.flowType !== 'browser_abandonment' && event.flowType !== 'abandoned_cart') continue;
    for (const name of names(event.normalized.products)) {
      if (!own.has(name.toLowerCase()) && !viewed.some((seen) => seen.toLowerCase() === name.toLowerCase())) viewed.push(name);
    }
  }
  const count = orders.length;
  return {
    '{shopper_status}': count === 0 ? 'new customer' : `returning customer (${count} earlier order${count === 1 ? '' : 's'})`,
    '{order_count}': String(count),
    '{last_order_date}': last ? dayOf(last.normalized.time, last.receivedAt) : '',
    '{last_purchase}': last ? names(last.normalized.products).slice(0, MAX_PRODUCTS_NAMED).join('; ') : '',
    '{viewed_products}': viewed.slice(0, MAX_PRODUCTS_NAMED).join('; '),
  };
}

/** Klaviyo's figures in words; each empty where Klaviyo has none. */
export function describePredictiveAnalytics(figures: PredictiveAnalytics | null): ShopperContextValues {
  const money = (value: number | null | undefined) => (typeof value === 'number' ? value.toFixed(2) : '');
  const churn = figures?.churnProbability;
  const risk = typeof churn === 'number' ? `${churn < 1 / 3 ? 'low' : churn < 2 / 3 ? 'medium' : 'high'} (${Math.round(churn * 100)} %)` : '';
  const next = figures?.expectedDateOfNextOrder;
  return {
    '{expected_next_order}': next && !Number.isNaN(new Date(next).getTime()) ? new Date(next).toISOString().slice(0, 10) : '',
    '{predicted_clv}': money(figures?.predictedClv),
    '{historic_clv}': money(figures?.historicClv),
    '{churn_risk}': risk,
  };
}

/** What of the flow decides which parts of the shopper are read. */
export interface ShopperContextNeeds {
  assistants: Array<Pick<Assistant, 'prompt_template' | 'fallback_text'>>;
  recommendations: RecommendationSettings;
}

/**
 * The event with what its prompts ask of the shopper. Klaviyo or the shop not answering
 * leaves their parts empty (the event's log says so), never a failed event; a shopper
 * with no history is written to as new. With `useContext` false (an experiment's arm
 * without the context) nothing is read and every such placeholder renders empty.
 */
export async function withShopperContext(
  context: PipelineContext,
  reading: {
    event: Pick<EventRecord, 'id' | 'userId' | 'receivedAt'>;
    needs: ShopperContextNeeds;
    described: NormalizedEvent;
    credentials: EngineCredentials;
    signal: AbortSignal;
    useContext?: boolean;
  },
): Promise<EventToWrite> {
  const { event, needs, described, credentials, signal } = reading;
  if (reading.useContext === false) return described;
  const templates = needs.assistants.flatMap((assistant) => [assistant.prompt_template, assistant.fallback_text]);
  const parts = shopperPartsNamedIn(templates);
  const recommend = parts.recommendations || needs.recommendations.profileProperty !== null;
  const email = described.shopper.email?.trim().toLowerCase();
  if (!parts.history && !parts.predictive && !recommend) return described;
  let values: ShopperContextValues = {};
  let history: ShopperHistoryEvent[] = [];
  // The history is read for its placeholders, and for the recommendations to leave out what was bought.
  if (email && (parts.history || recommend)) {
    const since = new Date(event.receivedAt.getTime() - SHOPPER_HISTORY_DAYS * DAY_MS);
    history = await listShopperHistory(context.pool, { userId: event.userId, email, exceptEventId: event.id, since });
  }
  if (email && parts.history) values = describeShopperHistory(history, { products: described.products, receivedAt: event.receivedAt });
  if (email && parts.predictive) {
    let figures: PredictiveAnalytics | null = null;
    try {
      await takeSlot(context, credentials, 'profiles-predictive', signal);
      figures = await findPredictiveAnalytics(await klaviyoConnection(context, credentials, signal), email, signal);
    } catch (error) {
      if (!(error instanceof ServiceError) || signal.aborted) throw error;
      context.logger.info({ eventId: event.id, code: error.code }, "Klaviyo's predictive analytics could not be read; those placeholders stay empty");
    }
    values = { ...values, ...describePredictiveAnalytics(figures) };
  }
  if (!recommend) return { ...described, shopperContext: values };
  const bought = history.filter((earlier) => isOrder(earlier, earlier.normalized)).flatMap((order) => order.normalized.products);
  const found = await recommendationsFor(context, {
    userId: event.userId,
    settings: needs.recommendations,
    described,
    owned: ownedProducts([...described.products, ...bought]),
    credentials,
    signal,
  });
  if (found.problem) context.logger.warn({ eventId: event.id, problem: found.problem }, 'recommendations not fetched; the texts are written without them');
  return { ...described, shopperContext: { ...values, '{recommendations}': recommendationsInWords(found.products) }, recommendations: found.products };
}
