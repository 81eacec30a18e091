import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from '../app/toast.ts';
import { ApiRequestError, callEndpoint, isBusyError, retryWhenBusy } from '../app/api-client.ts';
import {
  type Credentials,
  type EncryptionCheck,
  type MaskedCredentials,
} from '../../shared/credentials/credential-schemas.ts';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

export const credentialsQueryKeys = {
  status: ['credentials', 'status'],
  record: ['credentials', 'record'],
  encryption: ['credentials', 'encryption'],
} as const;

/**
 * docs/product/specification.md §4 "Setup": complete once a credentials record exists for
 * the user.
 */
export function useSetupStatus() {
  return useQuery({
    queryKey: credentialsQueryKeys.status,
    queryFn: async () => (await callEndpoint(endpoints.credentials.status)).setupComplete,
    staleTime: Infinity,
  });
}

/** A load failure whose message is already the one docs/product/specification.md §8 shows. */
export class CredentialsLoadError extends Error {}

/** The stored record, masked by the server; a failed load raises the specified toast once. */
export function useMaskedCredentials() {
  return useQuery({
    queryKey: credentialsQueryKeys.record,
    queryFn: async (): Promise<MaskedCredentials | null> => {
      try {
        return (await callEndpoint(endpoints.credentials.read)).credentials;
      } catch (error) {
        // Told to wait: the query waits and asks again (with the page's busy note), so no toast yet.
        if (isBusyError(error)) throw error;
        const message = error instanceof ApiRequestError && error.message ? credentialMessages.loadError(error.message) : credentialMessages.loadFailed;
        toast.error(message);
        throw new CredentialsLoadError(message);
      }
    },
    retry: retryWhenBusy,
  });
}

/** The real self-check behind the Encryption Warning banner. */
export function useEncryptionCheck() {
  return useQuery({
    queryKey: credentialsQueryKeys.encryption,
    queryFn: (): Promise<EncryptionCheck> => callEndpoint(endpoints.credentials.encryption),
  });
}

/**
 * Saves after the server's live check. On success the setup counts as complete at once
 * ("marked complete locally") and the record and self-check are loaded again.
 */
export function useSaveCredentials() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credentials: Credentials) => callEndpoint(endpoints.credentials.save, { body: credentials }),
    onSuccess: async (result) => {
      queryClient.setQueryData(credentialsQueryKeys.status, true);
      queryClient.setQueryData(credentialsQueryKeys.record, result.credentials);
      await queryClient.invalidateQueries({ queryKey: credentialsQueryKeys.encryption });
    },
  });
}

/** The text models a key may use; the stored key when `openaiApiKey` is its masked form. */
export async function fetchOpenAiModels(openaiApiKey: string): Promise<string[]> {
  return (await callEndpoint(endpoints.credentials.openaiModels, { body: { openaiApiKey } })).models;
}
