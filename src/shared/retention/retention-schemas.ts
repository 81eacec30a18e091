import { z } from 'zod';

/** How long an owner's events, payloads and texts are kept (docs/decisions/0029-retention-and-account-deletion.md). */
export const DEFAULT_RETENTION_DAYS = 30;
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 365;

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

export const retentionDaysSchema = z
  .number({ error: retentionMessages.daysInvalid })
  .int(retentionMessages.daysInvalid)
  .min(MIN_RETENTION_DAYS, retentionMessages.daysInvalid)
  .max(MAX_RETENTION_DAYS, retentionMessages.daysInvalid);

export const retentionSettingsSchema = z.object({ retentionDays: retentionDaysSchema });
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;
