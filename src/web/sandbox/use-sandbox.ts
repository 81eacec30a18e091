import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from '../app/toast.ts';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import type { SampleActivityRequest, SandboxStatus } from '../../shared/sandbox/sandbox-schemas.ts';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { requestMessages } from '../../shared/messages.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The sandbox feature's query keys; a change of the sandbox reads every other feature's again. */
export const sandboxKeys = {
  all: ['sandbox'] as const,
  status: ['sandbox', 'status'] as const,
  profiles: ['sandbox', 'profiles'] as const,
};

/** The owner's sandbox: whether it is on, and when it was (the event log's badges). */
export function useSandboxStatus() {
  return useQuery({
    queryKey: sandboxKeys.status,
    queryFn: (): Promise<SandboxStatus> => callEndpoint(endpoints.sandbox.status),
    // Short: credentials saved on another page make the switch to the real services possible.
    staleTime: 10_000,
  });
}

function errorMessage(error: unknown): string {
  return error instanceof ApiRequestError && error.message ? error.message : requestMessages.internal;
}

/** A change of the sandbox's state: the status, the flows (switched on) and the event log follow it. */
function useSandboxChange<Input>(run: (input: Input) => Promise<SandboxStatus>, success: (input: Input) => string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: async (status, input) => {
      queryClient.setQueryData(sandboxKeys.status, status);
      await queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== sandboxKeys.all[0] });
      toast.success(success(input));
    },
    onError: (error) => toast.error(errorMessage(error)),
  });
}

export function useStartSandbox() {
  return useSandboxChange<void>(() => callEndpoint(endpoints.sandbox.start), () => sandboxMessages.started);
}

export function useLeaveSandbox() {
  return useSandboxChange<void>(() => callEndpoint(endpoints.sandbox.leave), () => sandboxMessages.switchedToReal);
}

export function useSandboxOpenaiKey() {
  return useSandboxChange<string | null>((openaiApiKey) => callEndpoint(endpoints.sandbox.openaiKey, { body: { openaiApiKey } }), (key) =>
    key ? sandboxMessages.openaiKeySaved : sandboxMessages.openaiKeyRemoved,
  );
}

export function useSendSampleActivity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: SampleActivityRequest) => callEndpoint(endpoints.sandbox.activity, { body: request }),
    onSuccess: async (result) => {
      toast.success(sandboxMessages.activitySent(result.events.length));
      await queryClient.invalidateQueries({ queryKey: sandboxKeys.profiles });
    },
    onError: (error) => toast.error(errorMessage(error)),
  });
}

/** The sandbox Klaviyo's profiles, looked at again every few seconds while texts arrive. */
export function useSandboxProfiles() {
  return useQuery({
    queryKey: sandboxKeys.profiles,
    queryFn: async () => (await callEndpoint(endpoints.sandbox.profiles)).profiles,
    refetchInterval: 3_000,
  });
}
