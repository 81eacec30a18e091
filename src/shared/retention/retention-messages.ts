import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from './retention-days.ts';

/** What the settings page and the event log say about how long events are kept. */
export const retentionMessages = {
  daysInvalid: `Keep events for a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}.`,
  saved: 'Saved. Older events are deleted within the hour.',
  /** The event log's line under its list. */
  keptFor: (days: number) => `Events are kept for ${days} ${days === 1 ? 'day' : 'days'}.`,
  change: 'Change how long',
  sectionTitle: 'Keeping shoppers’ data',
  sectionHelp:
    'Events, the payloads your shop sent and the texts written for them are deleted once they are older than this, and ended experiments forget their shoppers. Totals of spending and experiments’ counts stay.',
  daysLabel: 'Keep events for (days)',
} as const;
