import { lazy, Suspense, useSyncExternalStore } from 'react';
import { toasterReady } from './toast.ts';

const SonnerToaster = lazy(async () => ({ default: (await import('sonner')).Toaster }));

/** sonner's Toaster, mounted once the first toast has fetched sonner (src/web/app/toast.ts). */
export function Toaster() {
  const ready = useSyncExternalStore(toasterReady.subscribe, toasterReady.get);
  if (!ready) return null;
  return (
    <Suspense fallback={null}>
      <SonnerToaster position="top-right" richColors closeButton />
    </Suspense>
  );
}
