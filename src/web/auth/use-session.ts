import { useCallback } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import type { SessionUser } from '../../shared/auth/auth-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The session's query keys: everything else cached belongs to the signed-in user. */
export const sessionKeys = {
  all: ['session'] as const,
};

/** The signed-in user as the server's session says, or null when signed out. */
export async function fetchSessionUser(): Promise<SessionUser | null> {
  try {
    return (await callEndpoint(endpoints.account.session)).user;
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 401) return null;
    throw error;
  }
}

/** The session, read once; sign-in, sign-out and refreshes replace it (useSetSessionUser). */
export function useSession() {
  return useQuery({ queryKey: sessionKeys.all, queryFn: fetchSessionUser, staleTime: Infinity, retry: 1 });
}

/** Puts a user into the session; with none, everything cached is dropped, since it belonged to the previous user. */
export function useSetSessionUser(): (user: SessionUser | null) => void {
  const queryClient = useQueryClient();
  return useCallback(
    (user: SessionUser | null) => {
      queryClient.setQueryData(sessionKeys.all, user);
      if (!user) queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKeys.all[0] });
    },
    [queryClient],
  );
}
