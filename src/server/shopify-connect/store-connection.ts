import type { FlowRecord } from '../flows/flow-queries.ts';
import { webhookUrlFor } from '../flows/webhook-url.ts';
import { fetchGrantedScopes, type ShopifyAdminConnection } from '../integrations/shopify/shopify-admin.ts';
import { webhookTopicScopes, type ShopifyScope } from '../../shared/shopify-connect/shopify-scopes.ts';
import { flowWebhookTopics, type ConnectResponse, type RegisteredSubscription } from '../../shared/shopify-connect/shopify-connect-schemas.ts';
import { flowTypeSchema, type FlowType } from '../../shared/flows/flow-types.ts';
import {
  createShopSubscription,
  deleteShopSubscription,
  listShopSubscriptions,
  updateShopSubscription,
  type ShopSubscription,
} from './webhook-subscriptions.ts';

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

function registered(subscription: ShopSubscription, flow: FlowRecord): RegisteredSubscription {
  return { id: subscription.id, topic: subscription.topic, url: subscription.uri, flowType: flow.flowType };
}

/** The shop's subscriptions that deliver to the owner's flows. */
export async function listFlowSubscriptions(connection: ShopifyAdminConnection, flows: FlowRecord[], signal: AbortSignal): Promise<RegisteredSubscription[]> {
  const byId = flowsByPathKey(flows);
  return (await listShopSubscriptions(connection, signal)).flatMap((subscription) => {
    const flow = flowOf(subscription, byId);
    return flow ? [registered(subscription, flow)] : [];
  });
}

/**
 * Makes the shop's subscriptions match the owner's flows: every topic of an active flow
 * delivers to its URL (created, or updated when it points elsewhere), and subscriptions
 * of inactive flows, or duplicates, are deleted. Calls go one at a time, well inside
 * Shopify's limits for the handful a store needs.
 */
export async function connectStore(connection: ShopifyAdminConnection, publicUrl: string, flows: FlowRecord[], signal: AbortSignal): Promise<ConnectResponse> {
  const byId = flowsByPathKey(flows);
  const existing = (await listShopSubscriptions(connection, signal)).flatMap((subscription) => {
    const flow = flowOf(subscription, byId);
    return flow ? [{ subscription, flow }] : [];
  });
  const result: ConnectResponse = { created: 0, updated: 0, deleted: 0, unchanged: 0, subscriptions: [] };
  const kept = new Set<string>();

  for (const flow of flows) {
    const topics = flow.isActive ? flowWebhookTopics[flow.flowType] : [];
    const url = flowWebhookUrl(publicUrl, flow);
    for (const topic of topics) {
      const candidates = existing.filter((entry) => entry.flow.id === flow.id && entry.subscription.topic === topic);
      const current = candidates.find((entry) => entry.subscription.uri === url) ?? candidates[0];
      if (!current) {
        result.subscriptions.push(registered(await createShopSubscription(connection, topic, url, signal), flow));
        result.created += 1;
        continue;
      }
      kept.add(current.subscription.id);
      if (current.subscription.uri === url) {
        result.subscriptions.push(registered(current.subscription, flow));
        result.unchanged += 1;
      } else {
        result.subscriptions.push(registered(await updateShopSubscription(connection, current.subscription.id, url, signal), flow));
        result.updated += 1;
      }
    }
  }
  for (const { subscription } of existing) {
    if (kept.has(subscription.id)) continue;
    await deleteShopSubscription(connection, subscription.id, signal);
    result.deleted += 1;
  }
  return result;
}

/** The scopes the active flows' webhook topics need that the token's app was not granted. */
export async function missingWebhookScopes(connection: ShopifyAdminConnection, flows: FlowRecord[], signal: AbortSignal): Promise<ShopifyScope[]> {
  const needed = new Set(flows.filter((flow) => flow.isActive).flatMap((flow) => flowWebhookTopics[flow.flowType].map((topic) => webhookTopicScopes[topic]!)));
  if (needed.size === 0) return [];
  const granted = new Set(await fetchGrantedScopes(connection, signal));
  return [...needed].filter((scope) => !granted.has(scope));
}
