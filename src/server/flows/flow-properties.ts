import type { FlowRecord } from './flow-queries.ts';

/**
 * Every Klaviyo profile property a flow writes: each assistant's text, and the
 * recommendations list where the flow names a property for it. What a holdout shopper's
 * delivery and an erasure clear.
 */
export function profilePropertiesWritten(flow: Pick<FlowRecord, 'assistants' | 'recommendations'>): string[] {
  const recommendations = flow.recommendations.profileProperty;
  return [...flow.assistants.map((assistant) => assistant.klaviyo_property), ...(recommendations ? [recommendations] : [])];
}
