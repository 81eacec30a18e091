import { defaultAssistant, type Assistant } from '../../shared/flows/flow-schemas.ts';
import { DEFAULT_WAIT_MINUTES } from '../../shared/flows/flow-wait.ts';

/**
 * A flow as it starts out: inactive (nothing runs before the owner has looked at it), no
 * webhook URL yet (so its page opens in the form, docs/product/specification.md §2 "Flow
 * page"), the default Subject Line assistant of §3 and, for abandonment flows, a
 * 30-minute wait.
 */
export function defaultFlowValues(): { isActive: boolean; assistants: Assistant[]; waitMinutes: number } {
  return {
    isActive: false,
    assistants: [{ ...defaultAssistant }],
    // The column needs a value for every flow; for post purchase it is never read.
    waitMinutes: DEFAULT_WAIT_MINUTES,
  };
}
