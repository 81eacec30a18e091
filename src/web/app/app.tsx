import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { AuthProvider } from '../auth/auth-context.tsx';
import { AppRoutes, preloadPage } from './router.tsx';
import { retryDelayFor, retryOnceOrWhenBusy } from './api-client.ts';
import { BusyNote } from './busy-note.tsx';
import { Toaster } from './toaster.tsx';

// A query told to wait (rate limit, busy server) waits and asks again, with a note.
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: retryOnceOrWhenBusy, retryDelay: retryDelayFor, refetchOnWindowFocus: false } },
});

preloadPage(window.location.pathname);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
        <Toaster />
        <BusyNote />
      </AuthProvider>
    </QueryClientProvider>
  );
}
