import { useLayoutEffect, useState, type ReactNode } from 'react';
import { Router, UNSAFE_createBrowserHistory as createBrowserHistory, type Location, type NavigationType } from 'react-router';

/**
 * React Router's BrowserRouter, except for when a move is shown: only once the next page's
 * code has arrived (`preload`), so the current page stays on screen meanwhile instead of
 * the full-screen loading state. BrowserRouter gets the same from React's transitions,
 * which Preact, the browser's runtime, does not have
 * (docs/decisions/0054-preact-in-the-browser.md). The address bar changes at once, as it
 * does with BrowserRouter; of moves made in quick succession the last one wins. A chunk
 * that cannot be fetched still moves, and the page frame says so with a reload.
 */
export function PreloadingRouter({ preload, children }: { preload: (pathname: string) => Promise<void>; children: ReactNode }) {
  const [history] = useState(() => createBrowserHistory({ v5Compat: true }));
  const [shown, setShown] = useState<{ action: NavigationType; location: Location }>(() => ({ action: history.action, location: history.location }));
  useLayoutEffect(() => {
    let latestMove = 0;
    return history.listen(({ action, location }) => {
      const move = ++latestMove;
      const show = () => {
        if (move === latestMove) setShown({ action, location });
      };
      preload(location.pathname).then(show, show);
    });
  }, [history, preload]);
  return (
    <Router location={shown.location} navigationType={shown.action} navigator={history}>
      {children}
    </Router>
  );
}
