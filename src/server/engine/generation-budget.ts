import type { FlowRecord } from '../flows/flow-queries.ts';
import { deferEvent, type EventRecord } from '../events/event-queries.ts';
import { eventOutcomeMessages as m } from '../../shared/events/event-messages.ts';
import { findFlowSpend } from './flow-spend-queries.ts';
import { EventOutcome, type PipelineContext } from './pipeline-context.ts';

/** Thrown when the event was put to wait for the budget's next day: the pipeline stops here without an outcome. */
export class WaitingForBudget extends Error {}

/**
 * The flow's daily budget, checked before any OpenAI call (docs/decisions/0022-budgets.md):
 * once what the flow spent today (UTC, by the app's clock) reaches it, the event waits for
 * the next day, or is skipped, as the owner chose. Spend is known only when a call's answer
 * arrives, so calls already under way when the budget is reached can take it over by
 * their own cost, no more. Replays and console test sends cost money too: the budget
 * holds for them as well.
 */
export async function requireRoomInBudget(context: PipelineContext, event: EventRecord, flow: FlowRecord): Promise<void> {
  if (flow.dailyBudgetUsd === null) return;
  const now = context.clock.now();
  const spent = await findFlowSpend(context.pool, flow.id, now);
  if (spent.costUsd < flow.dailyBudgetUsd) return;
  if (flow.overBudget === 'skip') throw new EventOutcome('skipped', m.budgetSkipped(flow.dailyBudgetUsd));
  const nextDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  if (await deferEvent(context.pool, event.id, event.attempt, { until: nextDay, reason: m.budgetWait(flow.dailyBudgetUsd, nextDay) })) {
    context.onWaiting?.(nextDay);
  }
  context.logger.info({ eventId: event.id, flowId: flow.id, until: nextDay }, 'daily budget spent; the event waits for the next day');
  throw new WaitingForBudget();
}
