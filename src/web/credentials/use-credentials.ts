import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from '../app/toast.ts';
import { ApiRequestError, callEndpoint, isBusyError, retryWhenBusy } from '../app/api-client.ts';
import type { Credentials, EncryptionCheck, MaskedCredentials } from '../../shared/credentials/credential-schemas.ts';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The credentials' query keys. */
export const credentialKeys = {
  status: ['credentials', 'status'] as const,
  record: ['credentials', 'record'] as const,
  encryption: ['credentials', 'encryption'] as const,
  openaiModels: (openaiApiKey: string) => ['credentials', 'openai-models', openaiApiKey] as const,
};

/**
 * docs/product/specification.md §4 "Setup": complete once a credentials record exists for
 * the user.
 */
export function useSetupStatus() {
  return useQuery({
    queryKey: credentialKeys.status,
    queryFn: async () => (await callEndpoint(endpoints.credentials.status)).setupComplete,
    staleTime: Infinity,
  });
}

/** A load failure whose message is already the one docs/product/specification.md §8 shows. */
export class CredentialsLoadError extends Error {}

/** The stored record, masked by the server; a failed load raises the specified toast once. */
export function useMaskedCredentials() {
  return useQuery({
    queryKey: credentialKeys.record,
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
    queryKey: credentialKeys.encryption,
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
      queryClient.setQueryData(credentialKeys.status, true);
      queryClient.setQueryData(credentialKeys.record, result.credentials);
      await queryClient.invalidateQueries({ queryKey: credentialKeys.encryption });
    },
  });
}

/**
 * The text models a key may use; the stored key when `openaiApiKey` is its masked form.
 * A key too short to be one is not looked up.
 */
export function useOpenAiModels(openaiApiKey: string) {
  return useQuery({
    queryKey: credentialKeys.openaiModels(openaiApiKey),
    queryFn: async () => (await callEndpoint(endpoints.credentials.openaiModels, { body: { openaiApiKey } })).models,
    enabled: openaiApiKey.length >= 8,
    retry: retryWhenBusy,
    staleTime: Infinity,
  });
}
