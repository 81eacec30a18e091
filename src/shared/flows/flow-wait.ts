/**
 * The wait of an abandonment flow: how long after the shopper's last activity content is
 * generated. Stored in minutes; entered as an amount and a unit.
 */
export const DEFAULT_WAIT_MINUTES = 30;
export const MAX_WAIT_MINUTES = 7 * 24 * 60;

export const waitUnits = ['minutes', 'hours', 'days'] as const;
export type WaitUnit = (typeof waitUnits)[number];
export const minutesPerWaitUnit: Record<WaitUnit, number> = { minutes: 1, hours: 60, days: 1440 };

/** The largest unit that expresses `minutes` exactly, so 90 stays "90 minutes" and 1440 reads "1 days". */
export function splitWait(minutes: number): { amount: number; unit: WaitUnit } {
  for (const unit of ['days', 'hours'] as const) {
    const size = minutesPerWaitUnit[unit];
    if (minutes > 0 && minutes % size === 0) return { amount: minutes / size, unit };
  }
  return { amount: minutes, unit: 'minutes' };
}

export function waitToMinutes(amount: number, unit: WaitUnit): number {
  return amount * minutesPerWaitUnit[unit];
}

/** "30 minutes", "1 hour", "7 days": the wait in the unit the owner would have picked. */
export function describeWait(minutes: number): string {
  const { amount, unit } = splitWait(minutes);
  return `${amount} ${amount === 1 ? unit.slice(0, -1) : unit}`;
}
