import type { GenerationRecord } from '../../src/server/generations/generation-queries.ts';

/** One assistant's succeeded text for `klaviyoProperty` of an event's first attempt, as the engine saves it; `fields` change what a test is about. */
export function generationRecord(eventId: string, klaviyoProperty: string, fields: Partial<GenerationRecord> = {}): GenerationRecord {
  return {
    eventId,
    attempt: 1,
    klaviyoProperty,
    assistantName: `Writer of ${klaviyoProperty}`,
    model: 'gpt-5-mini',
    instructions: 'Write briefly.',
    prompt: `A line for ${klaviyoProperty}`,
    status: 'succeeded',
    text: `Text for ${klaviyoProperty}`,
    inputTokens: 100,
    outputTokens: 10,
    totalTokens: 110,
    durationMs: 900,
    reused: false,
    error: null,
    cachedInputTokens: 80,
    serviceTier: 'default',
    costUsd: 0.0001,
    costEstimated: false,
    openaiCallId: 'call-1',
    reuseKey: null,
    reusedFrom: null,
    checks: null,
    ...fields,
  };
}
