import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from '../app/toast.ts';
import { api, ApiRequestError } from '../app/api-client.ts';
import {
  sampleActivityResultSchema,
  sandboxProfilesSchema,
  sandboxStatusSchema,
  type SampleActivityRequest,
  type SandboxStatus,
} from '../../shared/sandbox/sandbox-schemas.ts';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { requestMessages } from '../../shared/messages.ts';

export const sandboxQueryKeys = {
  status: ['sandbox', 'status'],
  profiles: ['sandbox', 'profiles'],
} as const;

/** The owner's sandbox: whether it is on, and when it was (the event log's badges). */
export function useSandboxStatus() {
  return useQuery({
    queryKey: sandboxQueryKeys.status,
    queryFn: async (): Promise<SandboxStatus> => sandboxStatusSchema.parse(await api.get('/api/sandbox')),
    // Short: credentials saved on another page make the switch to the real services possible.
    staleTime: 10_000,
  });
}

function errorMessage(error: unknown): string {
  return error instanceof ApiRequestError && error.message ? error.message : requestMessages.internal;
}

/** A change of the sandbox's state: the status, the flows (switched on) and the event log follow it. */
function useSandboxChange<Input>(run: (input: Input) => Promise<unknown>, success: (input: Input) => string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: Input) => sandboxStatusSchema.parse(await run(input)),
    onSuccess: async (status, input) => {
      queryClient.setQueryData(sandboxQueryKeys.status, status);
      await queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'sandbox' });
      toast.success(success(input));
    },
    onError: (error) => toast.error(errorMessage(error)),
  });
}

export function useStartSandbox() {
  return useSandboxChange<void>(() => api.post('/api/sandbox/start'), () => sandboxMessages.started);
}

export function useLeaveSandbox() {
  return useSandboxChange<void>(() => api.post('/api/sandbox/leave'), () => sandboxMessages.switchedToReal);
}

export function useSandboxOpenaiKey() {
  return useSandboxChange<string | null>((openaiApiKey) => api.put('/api/sandbox/openai-key', { openaiApiKey }), (key) =>
    key ? sandboxMessages.openaiKeySaved : sandboxMessages.openaiKeyRemoved,
  );
}

export function useSendSampleActivity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (request: SampleActivityRequest) => sampleActivityResultSchema.parse(await api.post('/api/sandbox/activity', request)),
    onSuccess: async (result) => {
      toast.success(sandboxMessages.activitySent(result.events.length));
      await queryClient.invalidateQueries({ queryKey: sandboxQueryKeys.profiles });
    },
    onError: (error) => toast.error(errorMessage(error)),
  });
}

/** The sandbox Klaviyo's profiles, looked at again every few seconds while texts arrive. */
export function useSandboxProfiles() {
  return useQuery({
    queryKey: sandboxQueryKeys.profiles,
    queryFn: async () => sandboxProfilesSchema.parse(await api.get('/api/sandbox/profiles')).profiles,
    refetchInterval: 3_000,
  });
}
