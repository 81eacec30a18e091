import { eventSources } from '../events/event-sources.ts';
import { eventStatuses } from '../events/event-statuses.ts';
import { flowTypes } from '../flows/flow-types.ts';
import type { GeneratedText, StreamChange } from './webhook-schemas.ts';

/** The SSE event name of a change (`event: change`). */
export const streamChangeEventName = 'change';

/**
 * Whether a `data:` of the stream is a change of the shape streamChangeSchema describes.
 * Our own server writes the stream, so the page does not need zod to read it; a message
 * of another shape (an older server's, a proxy's page) is still left out, as the schema
 * left it out. test/unit/stream-changes.test.ts holds the two to the same answers.
 */
export function isStreamChange(value: unknown): value is StreamChange {
  return (
    isRecord(value) &&
    typeof value.changeId === 'string' &&
    typeof value.eventId === 'string' &&
    typeof value.arrival === 'boolean' &&
    isOneOf(flowTypes, value.flowType) &&
    isOneOf(eventStatuses, value.status) &&
    isOneOf(eventSources, value.source) &&
    typeof value.dryRun === 'boolean' &&
    typeof value.receivedAt === 'string' &&
    typeof value.changedAt === 'string' &&
    // The body as received is any JSON, or text; it must be there all the same.
    'payload' in value &&
    isTextOrNull(value.error) &&
    Array.isArray(value.generations) &&
    value.generations.every(isGeneratedText)
  );
}

function isGeneratedText(value: unknown): value is GeneratedText {
  return isRecord(value) && typeof value.assistantName === 'string' && typeof value.klaviyoProperty === 'string' && isTextOrNull(value.text) && isTextOrNull(value.error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOneOf(values: readonly string[], value: unknown): boolean {
  return typeof value === 'string' && values.includes(value);
}

function isTextOrNull(value: unknown): boolean {
  return value === null || typeof value === 'string';
}
