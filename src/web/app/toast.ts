import type * as SonnerModule from 'sonner';
import type { ExternalToast } from 'sonner';

type Sonner = typeof SonnerModule;

/**
 * The app's toasts, with sonner's calls. sonner (about 8 KB compressed) is fetched with the
 * first toast instead of with every page: most visits to the sign-in page raise none
 * before moving on. A toast raised before sonner has arrived waits here and is raised, in
 * order, once it has; the Toaster (src/web/app/toaster.tsx) mounts then, and sonner shows
 * it the toasts raised before it subscribed. If the fetch fails, the waiting toasts stay
 * queued and the next toast tries again.
 */
let sonner: Sonner | null = null;
let loading: Promise<void> | null = null;
const waiting: Array<(loaded: Sonner) => void> = [];
const readyListeners = new Set<() => void>();

function raise(show: (loaded: Sonner) => void): void {
  if (sonner) {
    show(sonner);
    return;
  }
  waiting.push(show);
  loading ??= import('sonner').then(
    (loaded) => {
      sonner = loaded;
      for (const waited of waiting.splice(0)) waited(loaded);
      for (const listener of readyListeners) listener();
    },
    () => {
      loading = null;
    },
  );
}

export const toast = {
  success: (message: string, options?: ExternalToast): void => raise((loaded) => loaded.toast.success(message, options)),
  error: (message: string, options?: ExternalToast): void => raise((loaded) => loaded.toast.error(message, options)),
  info: (message: string, options?: ExternalToast): void => raise((loaded) => loaded.toast.info(message, options)),
  warning: (message: string, options?: ExternalToast): void => raise((loaded) => loaded.toast.warning(message, options)),
};

/** For useSyncExternalStore: whether sonner has arrived, so the Toaster can mount. */
export const toasterReady = {
  subscribe(listener: () => void): () => void {
    readyListeners.add(listener);
    return () => readyListeners.delete(listener);
  },
  get: (): boolean => sonner !== null,
};
