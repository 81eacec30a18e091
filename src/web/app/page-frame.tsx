import { Component, Suspense, type ErrorInfo, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { Button } from '../ui/button.tsx';
import { PageTitle } from './page-title.tsx';

export const pageFrameMessages = {
  loading: 'Loading the page',
  chunkFailedTitle: 'This page could not be loaded',
  chunkFailed: 'Flowsmith may have been updated since you opened it, or the connection dropped. Reloading fetches the current version.',
  failedTitle: 'Something went wrong on this page',
  failed: 'Reloading usually helps. If it keeps happening, go back to the dashboard.',
  reload: 'Reload page',
} as const;

/**
 * Around every page, each of which is its own chunk. Moving to a page whose chunk has not
 * arrived yet keeps the current page on screen until it has (the router navigates in a
 * PreloadingRouter); only the first page of a visit shows PageLoading. A page that cannot load
 * or render shows PageError instead of a blank screen; moving to another page clears it.
 */
export function PageFrame({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return (
    <PageErrorBoundary pathname={pathname}>
      <Suspense fallback={<PageLoading />}>{children}</Suspense>
    </PageErrorBoundary>
  );
}

/** The size of the screen, so the page replaces it without a jump; announced to screen readers. */
export function PageLoading() {
  return (
    <div role="status" className="flex min-h-screen items-center justify-center">
      <span className="h-8 w-8 animate-spin rounded-full border-4 border-slate-200 border-t-indigo-600" aria-hidden="true" />
      <span className="sr-only">{pageFrameMessages.loading}</span>
    </div>
  );
}

interface PageErrorState {
  error: unknown;
  pathname: string;
}

/**
 * Clears its error when the address changes rather than being keyed by it: a new key
 * would mount a new Suspense boundary on every move, which shows PageLoading instead of
 * keeping the current page while the next one loads.
 */
class PageErrorBoundary extends Component<{ pathname: string; children: ReactNode }, PageErrorState> {
  override state: PageErrorState = { error: null, pathname: this.props.pathname };

  static getDerivedStateFromError(error: unknown): Partial<PageErrorState> {
    return { error };
  }

  static getDerivedStateFromProps(props: { pathname: string }, state: PageErrorState): Partial<PageErrorState> | null {
    return props.pathname === state.pathname ? null : { error: null, pathname: props.pathname };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('A page failed to load or render', error, info.componentStack);
  }

  override render() {
    return this.state.error === null ? this.props.children : <PageError chunkFailed={isChunkLoadError(this.state.error)} />;
  }
}

/**
 * Most often the chunk is gone because the app was deployed again since the tab was opened
 * (the server answers an old asset with 404); a reload fetches the current index.html and
 * with it the current chunks.
 */
function PageError({ chunkFailed }: { chunkFailed: boolean }) {
  const title = chunkFailed ? pageFrameMessages.chunkFailedTitle : pageFrameMessages.failedTitle;
  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 px-4">
      <PageTitle title={`${title} · Flowsmith`} />
      <div role="alert" className="w-full max-w-md space-y-4 rounded-lg border border-slate-200 bg-white p-8 text-center shadow-sm">
        <h1 className="text-xl font-bold text-slate-900">{title}</h1>
        <p className="text-sm text-slate-700">{chunkFailed ? pageFrameMessages.chunkFailed : pageFrameMessages.failed}</p>
        <Button onClick={() => window.location.reload()}>{pageFrameMessages.reload}</Button>
      </div>
    </main>
  );
}

/** Each browser words a failed dynamic import differently; all of them are TypeErrors. */
function isChunkLoadError(error: unknown): boolean {
  return error instanceof TypeError && /dynamically imported module|importing a module script failed|error loading dynamically imported module/i.test(error.message);
}
