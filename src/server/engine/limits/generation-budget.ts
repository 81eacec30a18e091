import type { FlowRecord } from '../../flows/flow-queries.ts';
import { deferEvent, type EventRecord } from '../../events/event-queries.ts';
import { findFlowSpend } from '../../generations/flow-spend-queries.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';
import { ended, goOn, type StepResult } from '../spine/step-result.ts';
import { tellFlowStopped } from '../spine/flow-stops.ts';
import { decideBudget } from '../spine/pipeline-core.ts';

/**
 * The flow's daily budget, checked before any OpenAI call (docs/decisions/0022-budgets.md;
 * the rule is `decideBudget` in pipeline-core.ts): true when the event may go on; false
 * when it was put to wait for the budget's next day, and the pipeline stops here; ended
 * when the flow skips events over its budget. Spend is
 * known only when a call's answer arrives, so calls already under way when the budget is
 * reached can take it over by their own cost, no more. Replays and console test sends
 * cost money too: the budget holds for them as well.
 */
export async function requireRoomInBudget(context: PipelineContext, event: EventRecord, flow: FlowRecord): Promise<StepResult<boolean>> {
  if (flow.dailyBudgetUsd === null) return goOn(true);
  const now = context.clock.now();
  const spent = await findFlowSpend(context.pool, flow.id, now);
  const decision = decideBudget(flow, spent.costUsd, now);
  if (decision.kind === 'go_on') return goOn(true);
  const stop = { reason: 'budget' as const, detail: flow.dailyBudgetUsd.toFixed(2) };
  if (decision.kind === 'skip') return ended('skipped', decision.reason, stop);
  if (await deferEvent(context.pool, event.id, event.attempt, { until: decision.until, reason: decision.reason })) {
    context.onWaiting?.(decision.until);
    await tellFlowStopped(context, event, stop);
  }
  context.logger.info({ eventId: event.id, flowId: flow.id, until: decision.until }, 'daily budget spent; the event waits for the next day');
  return goOn(false);
}
