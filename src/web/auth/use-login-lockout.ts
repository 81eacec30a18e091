import { useCallback, useEffect, useState } from 'react';

/**
 * The browser side of the server's login lockout: once the server answers locked_out,
 * the form stays locked for the seconds it names, then unlocks by itself. The server
 * keeps enforcing the lock whatever the browser does.
 */
export function useLoginLockout() {
  const [lockedUntil, setLockedUntil] = useState<number | null>(null);

  useEffect(() => {
    if (lockedUntil === null) return;
    const timer = window.setTimeout(() => setLockedUntil(null), Math.max(0, lockedUntil - Date.now()));
    return () => window.clearTimeout(timer);
  }, [lockedUntil]);

  const lock = useCallback((retryAfterSeconds: number) => {
    setLockedUntil(Date.now() + Math.max(1, retryAfterSeconds) * 1000);
  }, []);

  return { locked: lockedUntil !== null, lock };
}
