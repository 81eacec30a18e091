import type { FlowRecord } from '../flows/flow-queries.ts';
import { webhookUrlFor } from '../flows/webhook-url.ts';
import { fetchGrantedScopes, type ShopifyAdminConnection } from '../integrations/shopify/shopify-admin.ts';
import { webhookTopicScopes, type ShopifyScope } from '../../shared/shopify-connect/shopify-scopes.ts';
import { type ConnectResponse, type RegisteredSubscription } from '../../shared/shopify-connect/shopify-connect-schemas.ts';
import { matchRegistered, planStoreSubscriptions } from '../../shared/shopify-connect/store-subscription-plan.ts';
import { flowTypeSchema } from '../../shared/flows/flow-type-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { createShopSubscription, deleteShopSubscription, listShopSubscriptions, updateShopSubscription, type ShopSubscription } from './webhook-subscriptions.ts';

/** Where Shopify delivers one flow's events: the flow's current webhook URL under PUBLIC_URL. */
export function flowWebhookUrl(publicUrl: string, flow: { flowType: FlowType; webhookKey: string }): string {
  return webhookUrlFor(publicUrl, flow.flowType, flow.webhookKey);
}

/**
 * Every path key that names one of the flows: the current key, the key a rotation
 * replaced, and the flow id (the key of every flow before its first rotation), so that a
 * subscription left at a rotated URL is recognised as the flow's and moved.
 */
function flowsByPathKey(flows: FlowRecord[]): Map<string, FlowRecord> {
  const byKey = new Map<string, FlowRecord>();
  for (const flow of flows) {
    for (const key of [flow.id, flow.previousWebhookKey, flow.webhookKey]) if (key) byKey.set(key, flow);
  }
  return byKey;
}

/**
 * The flow a subscription delivers to, when it is one of `flows`. Recognised by the
 * path alone, so a subscription left at an earlier PUBLIC_URL is still the flow's (and
 * gets updated); subscriptions of other apps and other owners are never touched.
 */
function flowOf(subscription: ShopSubscription, flows: Map<string, FlowRecord>): FlowRecord | null {
  let path: string;
  try {
    path = new URL(subscription.uri).pathname;
  } catch {
    return null;
  }
  const match = /^\/api\/webhooks\/([a-z_]+)\/([^/]+)$/.exec(path);
  if (!match || !flowTypeSchema.safeParse(match[1]).success) return null;
  const flow = flows.get(decodeURIComponent(match[2]!));
  return flow && flow.flowType === match[1] ? flow : null;
}

function registered(subscription: ShopSubscription, flow: FlowRecord, publicUrl: string): RegisteredSubscription {
  return { id: subscription.id, topic: subscription.topic, url: subscription.uri, flowType: flow.flowType, atCurrentAddress: subscription.uri === flowWebhookUrl(publicUrl, flow) };
}

/** The shop's subscriptions that deliver to the owner's flows. */
export async function listFlowSubscriptions(
  connection: ShopifyAdminConnection,
  publicUrl: string,
  flows: FlowRecord[],
  signal: AbortSignal,
): Promise<RegisteredSubscription[]> {
  const byKey = flowsByPathKey(flows);
  return (await listShopSubscriptions(connection, signal)).flatMap((subscription) => {
    const flow = flowOf(subscription, byKey);
    return flow ? [registered(subscription, flow, publicUrl)] : [];
  });
}

/**
 * Makes the shop's subscriptions match the plan (planStoreSubscriptions: every active
 * flow's topics at its URL, and one order subscription wherever it serves): a planned
 * topic already registered at another address of the owner's flows (an earlier
 * PUBLIC_URL or URL key, or another flow's address) is moved there, one not registered
 * is created, and the owner's subscriptions the plan does not claim (inactive flows',
 * duplicates, topics no longer used) are deleted, after the rest are in place so that
 * no topic is left without an address in between. Calls go one at a time, well inside
 * Shopify's limits for the handful a store needs.
 */
export async function connectStore(connection: ShopifyAdminConnection, publicUrl: string, flows: FlowRecord[], signal: AbortSignal): Promise<ConnectResponse> {
  const { rows, stale } = matchRegistered(planStoreSubscriptions(flows), await listFlowSubscriptions(connection, publicUrl, flows, signal));
  const result: ConnectResponse = { created: 0, updated: 0, deleted: 0, unchanged: 0, subscriptions: [] };

  for (const { planned, state, subscription } of rows) {
    const flow = flows.find((candidate) => candidate.isActive && candidate.flowType === planned.flowType);
    if (!flow) throw new Error(`the plan names ${planned.flowType}, which is not active`);
    const url = flowWebhookUrl(publicUrl, flow);
    if (state === 'registered' && subscription) {
      result.subscriptions.push(subscription);
      result.unchanged += 1;
    } else if (subscription) {
      result.subscriptions.push(registered(await updateShopSubscription(connection, subscription.id, url, signal), flow, publicUrl));
      result.updated += 1;
    } else {
      result.subscriptions.push(registered(await createShopSubscription(connection, planned.topic, url, signal), flow, publicUrl));
      result.created += 1;
    }
  }
  for (const subscription of stale) {
    await deleteShopSubscription(connection, subscription.id, signal);
    result.deleted += 1;
  }
  return result;
}

/** The scopes the planned webhook topics need that the token's app was not granted. */
export async function missingWebhookScopes(connection: ShopifyAdminConnection, flows: FlowRecord[], signal: AbortSignal): Promise<ShopifyScope[]> {
  const needed = new Set(planStoreSubscriptions(flows).map((planned) => webhookTopicScopes[planned.topic]));
  if (needed.size === 0) return [];
  const granted = new Set(await fetchGrantedScopes(connection, signal));
  return [...needed].filter((scope) => !granted.has(scope));
}
