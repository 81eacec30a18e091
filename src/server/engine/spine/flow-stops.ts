import type { EventRecord } from '../../events/event-queries.ts';
import type { PipelineContext } from './pipeline-context.ts';
import type { FlowStopReason } from './step-result.ts';

/**
 * The owner is told, on the dashboard, the flow page and by one mail a day, when a flow
 * stops writing texts for a reason they control. Telling never fails the event.
 */
export async function tellFlowStopped(context: PipelineContext, event: EventRecord, stop: FlowStopReason): Promise<void> {
  if (!context.alerts || (event.source === 'test' && event.dryRun)) return;
  try {
    await context.alerts.flowStopped({ flowId: event.flowId, flowType: event.flowType, userId: event.userId, reason: stop.reason, detail: stop.detail, at: context.clock.now() });
  } catch (error) {
    context.logger.warn({ eventId: event.id, reason: stop.reason, error: (error as Error).message }, 'the stopped flow was not recorded for its owner');
  }
}
