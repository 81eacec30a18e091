import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../app/toast.ts';
import { IDLE_SIGN_OUT_MS } from '../../shared/constants.ts';
import { pageRoutes } from '../../shared/routes.ts';
import { useAuth } from './auth-context.tsx';
import { accountPageMessages } from './auth-messages.ts';

const activityEvents = ['mousemove', 'mousedown', 'keydown', 'scroll', 'wheel', 'touchstart'] as const;
/**
 * Tabs share one session cookie, so an idle tab must not sign out an owner who is busy in
 * another: each tab publishes its last activity here and honours the others'.
 */
const sharedActivityKey = 'flowsmith.lastActivity';
/** Writing localStorage on every mouse move is wasteful; this precision is plenty for an hour. */
const sharedWriteIntervalMs = 5_000;

function readSharedActivity(): number {
  try {
    return Number(window.localStorage.getItem(sharedActivityKey)) || 0;
  } catch {
    return 0;
  }
}

function writeSharedActivity(at: number): void {
  try {
    window.localStorage.setItem(sharedActivityKey, String(at));
  } catch {
    // Storage can be unavailable (private modes, quotas); this tab still times itself.
  }
}

/**
 * docs/product/specification.md §4: a signed-in session ends after 1 hour without mouse,
 * keyboard, scroll or touch activity. The deadline is re-checked when a timer fires
 * rather than re-armed on every event, and also when the tab becomes visible again, since
 * timers are throttled in background tabs and stop while the computer sleeps.
 */
export function IdleSignOut() {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  const signedIn = user !== null;

  useEffect(() => {
    if (!signedIn) return;
    let lastActivity = Date.now();
    let lastShared = 0;
    let timer: number | undefined;
    let expired = false;

    const recordActivity = () => {
      lastActivity = Date.now();
      if (lastActivity - lastShared >= sharedWriteIntervalMs) {
        lastShared = lastActivity;
        writeSharedActivity(lastActivity);
      }
    };

    const check = () => {
      if (expired) return;
      lastActivity = Math.max(lastActivity, readSharedActivity());
      const remaining = lastActivity + IDLE_SIGN_OUT_MS - Date.now();
      if (remaining > 0) {
        window.clearTimeout(timer);
        timer = window.setTimeout(check, remaining);
        return;
      }
      expired = true;
      void signOut()
        .catch(() => undefined)
        .finally(() => {
          toast.info(accountPageMessages.idleSignedOut, { duration: Infinity });
          navigate(pageRoutes.login, { replace: true });
        });
    };

    const onVisibilityChange = () => {
      if (document.visibilityState === 'visible') check();
    };

    recordActivity();
    for (const name of activityEvents) document.addEventListener(name, recordActivity, { capture: true, passive: true });
    document.addEventListener('visibilitychange', onVisibilityChange);
    timer = window.setTimeout(check, IDLE_SIGN_OUT_MS);
    return () => {
      window.clearTimeout(timer);
      for (const name of activityEvents) document.removeEventListener(name, recordActivity, { capture: true });
      document.removeEventListener('visibilitychange', onVisibilityChange);
    };
  }, [signedIn, signOut, navigate]);

  return null;
}
