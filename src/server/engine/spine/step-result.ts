import type { FlowAlertReason } from '../../../shared/alerts/flow-alert-schemas.ts';
import type { Decision } from './pipeline-core.ts';

/**
 * What a step of the event pipeline answers (docs/decisions/0035-pure-pipeline-core.md):
 * go on, with what the step produced, or the event ends here, with its status and reason.
 * A step that ends the event returns its end; the step that called it returns it in turn,
 * up to the pipeline, and processEvent (event-pipeline.ts) stores it as the event's outcome.
 * Only what nobody chose (a service failing, a rate limit's wait, an abort, a bug) throws.
 */
export type StepResult<T> = GoOn<T> | Ended;

export interface GoOn<T> {
  kind: 'go_on';
  value: T;
}

export interface Ended {
  kind: 'ended';
  outcome: EventEnd;
}

/**
 * How the event ends, with this status and reason; `stop` when the flow stopped writing
 * texts for a reason its owner controls, which the owner is told of (flow-alerts.ts).
 */
export interface EventEnd {
  status: 'skipped' | 'failed';
  reason: string;
  stop: FlowStopReason | null;
}

/** Why a flow stopped writing a text, in the alert's terms, and what says it in full. */
export interface FlowStopReason {
  reason: FlowAlertReason;
  detail: string;
}

export function goOn(): GoOn<void>;
export function goOn<T>(value: T): GoOn<T>;
export function goOn<T>(value?: T): GoOn<T | undefined> {
  return { kind: 'go_on', value };
}

export function ended(status: EventEnd['status'], reason: string, stop: FlowStopReason | null = null): Ended {
  return { kind: 'ended', outcome: { status, reason, stop } };
}

/** The end a core decision gives the event: `skip` and `fail` end it, with the decision's reason; any other decision does not (null). */
export function endedBy(decision: Decision): Ended | null {
  if (decision.kind === 'skip') return ended('skipped', decision.reason);
  if (decision.kind === 'fail') return ended('failed', decision.reason);
  return null;
}

/**
 * Like Promise.all over steps, with an end counted as a failure is: the first end or error
 * to arrive is the answer, else every step's value, in order.
 */
export function allGoingOn<T>(steps: ReadonlyArray<Promise<StepResult<T>>>): Promise<StepResult<T[]>> {
  return new Promise((resolve, reject) => {
    const values: T[] = new Array<T>(steps.length);
    let left = steps.length;
    if (left === 0) resolve(goOn(values));
    steps.forEach((step, index) => {
      step.then((result) => {
        if (result.kind === 'ended') {
          resolve(result);
          return;
        }
        values[index] = result.value;
        left -= 1;
        if (left === 0) resolve(goOn(values));
      }, reject);
    });
  });
}
