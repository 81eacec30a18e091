import type { Queryable } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { LOGIN_LOCKOUT_ATTEMPTS, LOGIN_LOCKOUT_SECONDS } from '../../shared/constants.ts';
import { clientAddressKey } from '../platform/client-address.ts';
import { countFailedAttempt, forgetFailedAttempts, latestLockEnd } from './login-attempt-queries.ts';

/**
 * The login lockout, enforced by the server and counted in the database so every server
 * process sees the same lock (docs/decisions/0016-client-address-and-lockout.md):
 *
 * - per account, the specified rule (docs/product/specification.md §4): 5 consecutive
 *   failed sign-ins lock that account for 60 seconds, from every address; the lock's end,
 *   or a success, resets the count.
 * - per client address, across accounts: 10 failures from one address, each within 15
 *   minutes of the one before, lock that address for 60 seconds, for every account. A
 *   success does not reset this count, or signing in to one's own account between
 *   guesses would undo the limit. Other addresses are never affected, and one owner's
 *   five mistakes lock their account without locking colleagues behind the same address.
 *
 * Both locks last the specified 60 seconds, so its message ("try again in 1 minute") is
 * true whichever lock holds.
 */
export const ADDRESS_LOCKOUT_ATTEMPTS = 10;
export const ADDRESS_FAILURE_WINDOW_MS = 15 * 60_000;

export interface LockoutCounter {
  key: string;
  /** The failure that reaches this count sets the lock. */
  attempts: number;
  /** A failure more than this long after the previous one starts a fresh count; null: never. */
  windowMs: number | null;
}

export function accountLockoutKey(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

/** The counters a sign-in of `email` from the client at `clientIp` (request.ip) runs against. */
export function signInCounters(email: string, clientIp: string): LockoutCounter[] {
  return [
    { key: accountLockoutKey(email), attempts: LOGIN_LOCKOUT_ATTEMPTS, windowMs: null },
    { key: `address:${clientAddressKey(clientIp)}`, attempts: ADDRESS_LOCKOUT_ATTEMPTS, windowMs: ADDRESS_FAILURE_WINDOW_MS },
  ];
}

/** Seconds until every lock on `counters` ends, or 0 when none holds. */
export async function secondsUntilUnlocked(db: Queryable, counters: LockoutCounter[], clock: Clock): Promise<number> {
  const lockEnd = await latestLockEnd(db, counters.map((counter) => counter.key));
  const now = clock.now().getTime();
  const latest = lockEnd?.getTime() ?? 0;
  return latest > now ? Math.ceil((latest - now) / 1000) : 0;
}

/** Counts one failure on each counter; returns true when that failure set a lock. */
export async function recordFailedSignIn(db: Queryable, counters: LockoutCounter[], clock: Clock): Promise<boolean> {
  const now = clock.now();
  const lockUntil = new Date(now.getTime() + LOGIN_LOCKOUT_SECONDS * 1000);
  let locked = false;
  for (const counter of counters) {
    // An expired lock starts a fresh count, as specified: it unlocks and the counter
    // resets; so does a failure after a quiet window, for counters that have one.
    const countsFrom = counter.windowMs === null ? null : new Date(now.getTime() - counter.windowMs);
    // Every counter counts the failure, also once an earlier one has locked.
    const setLock = await countFailedAttempt(db, counter.key, { at: now, lockUntil, attempts: counter.attempts, countsFrom });
    locked ||= setLock;
  }
  return locked;
}

/** After a successful sign-in: the account's count starts again; the address's does not. */
export async function clearAccountFailures(db: Queryable, email: string): Promise<void> {
  await forgetFailedAttempts(db, accountLockoutKey(email));
}
