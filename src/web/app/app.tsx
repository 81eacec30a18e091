import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AuthProvider } from '../auth/auth-context.tsx';
import { AppRoutes, preloadPage } from './router.tsx';
import { PreloadingRouter } from './preloading-router.tsx';
import { retryDelayFor, retryOnceOrWhenBusy } from './api-client.ts';
import { BusyNote } from './busy-note.tsx';
import { Toaster } from './toaster.tsx';

// A query told to wait (rate limit, busy server) waits and asks again, with a note.
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: retryOnceOrWhenBusy, retryDelay: retryDelayFor, refetchOnWindowFocus: false } },
});

// The first page's chunks together (a failure shows on the page frame when it renders).
preloadPage(window.location.pathname).catch(() => undefined);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <PreloadingRouter preload={preloadPage}>
          <AppRoutes />
        </PreloadingRouter>
        <Toaster />
        <BusyNote />
      </AuthProvider>
    </QueryClientProvider>
  );
}
