import { useEffect, useRef } from 'react';
import { useMutation } from '@tanstack/react-query';
import { callEndpoint } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { useAuth } from './auth-context.tsx';

/**
 * Spends the confirmation mail's token as soon as the page has it; when the server signed
 * the owner in with it, the session is read again. A mutation, not a query: the token
 * works once, so it must never be sent again by a refetch.
 */
export function useVerifyEmail(token: string | null) {
  const { refresh } = useAuth();
  const verification = useMutation({
    mutationFn: async (sent: string) => {
      const { signedIn } = await callEndpoint(endpoints.account.verifyEmail, { body: { token: sent } });
      if (signedIn) await refresh().catch(() => null);
    },
  });
  // React's development double effects must not spend the token twice.
  const started = useRef(false);
  const { mutate } = verification;
  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    mutate(token);
  }, [token, mutate]);
  return verification;
}
