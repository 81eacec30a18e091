import { useEffect, useState, useSyncExternalStore } from 'react';
import { busyState } from './api-client.ts';
import { requestMessages } from '../../shared/messages.ts';

/**
 * While a page waits out a busy answer (the owner's rate limit, a server catching its
 * breath) and will ask again by itself, says so with the seconds left, instead of the
 * page showing an error. Screen readers hear it once, not every second.
 */
export function BusyNote() {
  const until = useSyncExternalStore(busyState.subscribe, busyState.until);
  const notedAt = useSyncExternalStore(busyState.subscribe, busyState.notedAt);
  const [ticked, setTicked] = useState(() => Date.now());
  // The last tick may be from long before this wait began (the page was open a while): until
  // the next one, the time is when the wait was noted, not the older tick (which read
  // "4 s" for a 3 s wait on a busy machine).
  const now = Math.max(ticked, notedAt);
  const waiting = until > now;

  // The clock moves on in timer callbacks only; the first tick comes at once.
  useEffect(() => {
    if (until <= Date.now()) return;
    const tick = () => setTicked(Date.now());
    const first = window.setTimeout(tick, 0);
    const timer = window.setInterval(tick, 250);
    return () => {
      window.clearTimeout(first);
      window.clearInterval(timer);
    };
  }, [until]);
  // No wait is longer than a minute (api-client.ts), whatever a stale clock would say.
  const seconds = Math.min(60, Math.max(1, Math.ceil((until - now) / 1000)));

  return (
    <div role="status" className="pointer-events-none fixed inset-x-0 bottom-4 z-50 flex justify-center px-4">
      {waiting ? (
        <p className="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white shadow-lg" data-testid="busy-note">
          <span className="sr-only">{requestMessages.busyRetryingSoon}</span>
          <span aria-hidden="true">{requestMessages.busyRetrying(seconds)}</span>
        </p>
      ) : null}
    </div>
  );
}
