import { useLayoutEffect } from 'react';

/**
 * The browser tab's title while the component is shown, and the previous one back when it
 * goes. The browser runs on Preact (docs/decisions/0054-preact-in-the-browser.md), which
 * renders a `<title>` element where it stands, in the body, where the browser ignores it;
 * React 19 moved it into the head.
 */
export function PageTitle({ title }: { title: string }) {
  useLayoutEffect(() => {
    const previous = document.title;
    document.title = title;
    return () => {
      document.title = previous;
    };
  }, [title]);
  return null;
}
