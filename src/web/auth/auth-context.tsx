import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { callEndpoint } from '../app/api-client.ts';
import type { SessionUser, SignInInput } from '../../shared/auth/auth-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { fetchSessionUser, useSession, useSetSessionUser } from './use-session.ts';

interface AuthState {
  user: SessionUser | null;
  /** True until the first session check has answered. */
  loading: boolean;
  signIn(input: SignInInput): Promise<SessionUser>;
  signOut(): Promise<void>;
  /** Re-reads the session from the server (after verification or a password reset). */
  refresh(): Promise<SessionUser | null>;
  setUser(user: SessionUser | null): void;
}

const AuthContext = createContext<AuthState | null>(null);

/** The signed-in user, read from the server's session (the cookie itself is httpOnly). */
export function AuthProvider({ children }: { children: ReactNode }) {
  const session = useSession();
  const setUser = useSetSessionUser();

  const refresh = useCallback(async () => {
    const user = await fetchSessionUser();
    setUser(user);
    return user;
  }, [setUser]);

  const signIn = useCallback(
    async (input: SignInInput) => {
      const { user } = await callEndpoint(endpoints.account.signIn, { body: input });
      setUser(user);
      return user;
    },
    [setUser],
  );

  const signOut = useCallback(async () => {
    try {
      await callEndpoint(endpoints.account.signOut);
    } finally {
      setUser(null);
    }
  }, [setUser]);

  const value = useMemo(
    () => ({ user: session.data ?? null, loading: session.isPending, signIn, signOut, refresh, setUser }),
    [session.data, session.isPending, signIn, signOut, refresh, setUser],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const context = useContext(AuthContext);
  if (!context) throw new Error('useAuth must be used within an AuthProvider');
  return context;
}
