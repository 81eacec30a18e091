import { z } from 'zod';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from './retention-days.ts';
import { retentionMessages } from './retention-messages.ts';

export const retentionDaysSchema = z
  .number({ error: retentionMessages.daysInvalid })
  .int(retentionMessages.daysInvalid)
  .min(MIN_RETENTION_DAYS, retentionMessages.daysInvalid)
  .max(MAX_RETENTION_DAYS, retentionMessages.daysInvalid);

export const retentionSettingsSchema = z.object({ retentionDays: retentionDaysSchema });
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;
