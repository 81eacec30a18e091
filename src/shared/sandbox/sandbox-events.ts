import { pageRoutes } from '../routes.ts';
import type { SandboxStatus } from './sandbox-schemas.ts';

/*
 * How the pages point at the sandbox (docs/decisions/0026-sandbox.md): which events went
 * to it, and the page that shows the sandbox Klaviyo's profiles those events were written to.
 */

/** Whether an event received at `receivedAt` went to the sandbox (its badge in the event log). */
export function isSandboxEvent(status: Pick<SandboxStatus, 'periods'> | undefined, receivedAt: string): boolean {
  if (!status) return false;
  const at = Date.parse(receivedAt);
  return status.periods.some((period) => Date.parse(period.startedAt) <= at && (period.endedAt === null || at < Date.parse(period.endedAt)));
}

/** The sandbox Klaviyo's profiles page, optionally opened at one shopper (the event log links there). */
export function sandboxProfilesPath(email?: string | null): string {
  return email ? `${pageRoutes.sandboxProfiles}?email=${encodeURIComponent(email)}` : pageRoutes.sandboxProfiles;
}
