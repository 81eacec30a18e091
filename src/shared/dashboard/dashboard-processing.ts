import type { DashboardProcessing } from './dashboard-schemas.ts';

/**
 * Past this, the oldest event behind is a warning: a few seconds behind is an event being
 * processed, minutes behind are workers that cannot keep up (or none running).
 */
export const PROCESSING_LATE_AFTER_SECONDS = 5 * 60;

/** Whether the oldest event behind is late enough for the dashboard to warn. */
export function isProcessingLate(processing: Pick<DashboardProcessing, 'oldestBehindSeconds'>): boolean {
  return (processing.oldestBehindSeconds ?? 0) > PROCESSING_LATE_AFTER_SECONDS;
}
