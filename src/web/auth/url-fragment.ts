/**
 * Mailed links carry their one-time token in the URL fragment
 * (`#access_token=…&type=signup|recovery`), which browsers never send to a server.
 */
export interface AuthLinkFragment {
  accessToken: string | null;
  type: string | null;
}

export function readAuthLinkFragment(hash: string = window.location.hash): AuthLinkFragment {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  return { accessToken: params.get('access_token') || null, type: params.get('type') || null };
}

/**
 * Removes the fragment from the address bar and the history entry, so the token is not
 * left in the history, a bookmark or a shared screenshot once it has been read.
 */
export function clearUrlFragment(): void {
  if (!window.location.hash) return;
  const { pathname, search } = window.location;
  window.history.replaceState(window.history.state, '', `${pathname}${search}`);
}
