import type pg from 'pg';
import { inTransaction, type Queryable } from '../database/database.ts';
import { refused, type Refused } from '../platform/http-errors.ts';
import { flowHasWait, type FlowType } from '../../shared/flows/flow-types.ts';
import type { Flow, UpdateFlow } from '../../shared/flows/flow-schemas.ts';
import { flowMessages, flowValidationMessages } from '../../shared/flows/flow-messages.ts';
import type { WebhookUrlGraceMinutes } from '../../shared/flows/webhook-url-grace.ts';
import {
  createMissingFlows,
  findFlowForUser,
  listFlowsForUser,
  lockFlowsForUser,
  replaceWebhookUrl,
  rotateWebhookKey,
  saveFlowConfiguration,
  type FlowRecord,
} from './flow-queries.ts';
import { newWebhookKey, webhookUrlFor } from './webhook-url.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/**
 * The API's view of a flow: the stored URL next to the one the server would generate now,
 * and until when (by the app's clock, `now`) the URL replaced by the last rotation works.
 * The replaced key itself is never shown again.
 */
export function toApiFlow(flow: FlowRecord, publicUrl: string, now: Date): Flow {
  const generatedWebhookUrl = webhookUrlFor(publicUrl, flow.flowType, flow.webhookKey);
  const previousValidUntil = flow.previousWebhookKey !== null ? flow.previousWebhookKeyExpiresAt : null;
  return {
    id: flow.id,
    flowType: flow.flowType,
    isActive: flow.isActive,
    webhookUrl: flow.webhookUrl,
    generatedWebhookUrl,
    webhookUrlOutdated: flow.webhookUrl !== null && flow.webhookUrl !== generatedWebhookUrl,
    assistants: flow.assistants,
    waitMinutes: flow.waitMinutes,
    klaviyoEventName: flow.klaviyoEventName,
    shopperCooldownHours: flow.shopperCooldownHours,
    dailyGenerationCap: flow.dailyGenerationCap,
    useFlexTier: flow.useFlexTier,
    reuseWindowHours: flow.reuseWindowHours,
    dailyBudgetUsd: flow.dailyBudgetUsd,
    overBudget: flow.overBudget,
    textRules: flow.textRules,
    recommendations: flow.recommendations,
    previousWebhookUrlValidUntil: previousValidUntil && previousValidUntil.getTime() > now.getTime() ? previousValidUntil.toISOString() : null,
    updatedAt: flow.updatedAt.toISOString(),
  };
}

/**
 * docs/product/specification.md §4: "If none exist, defaults are initialised." Returns
 * the four and how many were new.
 */
export async function initializeFlows(pool: pg.Pool, userId: string): Promise<{ flows: FlowRecord[]; created: number }> {
  return inTransaction(pool, async (client) => {
    const created = await createMissingFlows(client, userId);
    return { flows: await listFlowsForUser(client, userId), created };
  });
}

/** One of the owner's flows, by its type (each owner has one of each). */
export interface OwnersFlow {
  userId: string;
  flowType: FlowType;
}

/**
 * Saves the owner's configuration of one flow. The webhook URL is always the generated
 * one; the answer says whether this save gave the flow its first URL or replaced an
 * outdated one, which the page announces.
 */
export async function updateFlow(
  pool: pg.Pool,
  publicUrl: string,
  ownersFlow: OwnersFlow,
  input: UpdateFlow,
): Promise<{ flow: FlowRecord; firstSave: boolean; webhookUrlRewritten: boolean } | Refused> {
  const { userId, flowType } = ownersFlow;
  if (!flowHasWait(flowType) && input.waitMinutes !== undefined) {
    return refused(apiErrorCodes.validation, flowValidationMessages.waitNotApplicable, {
      fieldErrors: { waitMinutes: flowValidationMessages.waitNotApplicable },
    });
  }
  return inTransaction(pool, async (client) => {
    await createMissingFlows(client, userId);
    const current = await findFlowForUser(client, userId, flowType, { forUpdate: true });
    if (!current) return refused(apiErrorCodes.flow_not_found, flowMessages.flowNotFound);
    const webhookUrl = webhookUrlFor(publicUrl, flowType, current.webhookKey);
    const flow = await saveFlowConfiguration(client, userId, flowType, {
      isActive: input.isActive,
      webhookUrl,
      assistants: input.assistants,
      waitMinutes: input.waitMinutes ?? null,
      klaviyoEventName: input.klaviyoEventName,
      shopperCooldownHours: input.shopperCooldownHours ?? null,
      dailyGenerationCap: input.dailyGenerationCap ?? null,
      useFlexTier: input.useFlexTier ?? null,
      reuseWindowHours: input.reuseWindowHours ?? null,
      // undefined keeps the budget; null removes it.
      dailyBudgetUsd: input.dailyBudgetUsd === undefined ? { keep: true } : { keep: false, value: input.dailyBudgetUsd },
      overBudget: input.overBudget ?? null,
      textRules: input.textRules ?? null,
      recommendations: input.recommendations ?? null,
    });
    if (!flow) return refused(apiErrorCodes.flow_not_found, flowMessages.flowNotFound);
    return {
      flow,
      firstSave: current.webhookUrl === null,
      webhookUrlRewritten: current.webhookUrl !== null && current.webhookUrl !== webhookUrl,
    };
  });
}

/**
 * The fix-up of docs/product/specification.md §4: rewrites every stored URL of the owner
 * that is not the canonical one (an old format, or a PUBLIC_URL that has since changed)
 * and reports how many. Flows without a URL keep none; they get theirs when first saved.
 */
export async function fixWebhookUrls(pool: pg.Pool, publicUrl: string, userId: string): Promise<{ updated: number; flows: FlowRecord[] }> {
  return inTransaction(pool, async (client) => {
    await lockFlowsForUser(client, userId);
    let updated = 0;
    for (const flow of await listFlowsForUser(client, userId)) {
      const canonical = webhookUrlFor(publicUrl, flow.flowType, flow.webhookKey);
      if (flow.webhookUrl === null || flow.webhookUrl === canonical) continue;
      await replaceWebhookUrl(client, userId, flow.id, canonical);
      updated += 1;
    }
    return { updated, flows: await listFlowsForUser(client, userId) };
  });
}

/**
 * "Rotate URL": the flow gets a new URL key, and the current one keeps working for
 * `graceMinutes` more by the app's clock (0: it stops now). One UPDATE, so two rotations
 * at once leave one previous key, never a mix of both.
 */
export async function rotateWebhookUrl(
  db: Queryable,
  publicUrl: string,
  ownersFlow: OwnersFlow,
  rotation: { graceMinutes: WebhookUrlGraceMinutes; now: Date },
): Promise<FlowRecord | Refused> {
  const { userId, flowType } = ownersFlow;
  const { graceMinutes, now } = rotation;
  const flow = await rotateWebhookKey(db, userId, flowType, {
    newKey: newWebhookKey(),
    previousKeyExpiresAt: graceMinutes === 0 ? null : new Date(now.getTime() + graceMinutes * 60_000),
    webhookUrlFor: (key) => webhookUrlFor(publicUrl, flowType, key),
  });
  if (!flow) return refused(apiErrorCodes.flow_not_found, flowMessages.flowNotFound);
  return flow;
}
