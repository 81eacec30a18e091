import { useCallback, useEffect, useState, type ComponentType, type ReactElement } from 'react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';

export const deferredPartMessages = {
  loading: (label: string) => `Loading ${label}`,
  failedTitle: (label: string) => `${label[0]?.toUpperCase() ?? ''}${label.slice(1)} could not be loaded`,
  failed: 'The connection may have dropped, or Flowsmith was updated since this page was opened. Try again, or reload the page.',
  retry: 'Try again',
} as const;

type Loaded<P> = ComponentType<P>;

/**
 * A part of a page whose code is fetched when it is first shown rather than with the page
 * (docs/decisions/0052-light-pages.md): it says it is loading, and when the fetch fails
 * (offline, or a new deployment removed the old file) it says so with a retry instead of
 * breaking the page around it. React's `lazy` keeps a failed fetch for good, so the load is
 * held here where a retry can start it again; a load that succeeded once is kept per
 * loader, so showing the part again is immediate.
 */
export function DeferredPart<P extends object>({ load, label, props }: { load: () => Promise<Loaded<P>>; label: string; props: P }): ReactElement {
  const [state, setState] = useState<{ component: Loaded<P> | null; failed: boolean }>(() => ({ component: loadedParts.get(load) as Loaded<P> | undefined ?? null, failed: false }));
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (state.component) return;
    let current = true;
    load().then(
      (component) => {
        loadedParts.set(load, component as Loaded<object>);
        if (current) setState({ component, failed: false });
      },
      () => {
        if (current) setState({ component: null, failed: true });
      },
    );
    return () => {
      current = false;
    };
    // `attempt` starts the fetch again after a failure.
  }, [load, attempt, state.component]);
  const retry = useCallback(() => {
    setState({ component: null, failed: false });
    setAttempt((count) => count + 1);
  }, []);
  if (state.component) {
    const Part = state.component;
    return <Part {...props} />;
  }
  if (state.failed) {
    return (
      <Alert tone="error" title={deferredPartMessages.failedTitle(label)}>
        <p>{deferredPartMessages.failed}</p>
        <Button variant="secondary" className="mt-3" onClick={retry}>
          {deferredPartMessages.retry}
        </Button>
      </Alert>
    );
  }
  return <Spinner label={deferredPartMessages.loading(label)} />;
}

const loadedParts = new WeakMap<() => Promise<unknown>, Loaded<object>>();
