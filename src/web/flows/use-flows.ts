import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { toast } from '../app/toast.ts';
import { ApiRequestError, callEndpoint, isBusyError, retryWhenBusy } from '../app/api-client.ts';
import { flowTypes, type FlowType } from '../../shared/flows/flow-types.ts';
import type { Flow, UpdateFlowInput } from '../../shared/flows/flow-schemas.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import type { WebhookUrlGraceMinutes } from '../../shared/flows/webhook-url-grace.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/**
 * The flows' query keys. `all` is the owner's list of flows and the start of every other
 * flow key, so reading the flows again reads their costs too.
 */
export const flowKeys = {
  all: ['flows'] as const,
  /** What each flow spent on OpenAI (the dashboard's costs, the flow page's context cost). */
  costs: ['flows', 'costs'] as const,
  /** Whether a flow requires a signature: a key of its own, not under `all`, so reading the flows again leaves it be. */
  signature: (flowType: FlowType) => ['flow-signature', flowType] as const,
};

/** How long the "URLs need updating" info toast shows (docs/product/specification.md §9). */
const WEBHOOK_FORMAT_TOAST_MS = 5_000;

/** The toasts loading may raise; tests and other callers can pass their own. */
export interface FlowNotifier {
  info(message: string, durationMs?: number): void;
  success(message: string): void;
  error(message: string): void;
}

const toastNotifier: FlowNotifier = {
  info: (message, durationMs) => toast.info(message, durationMs === undefined ? undefined : { duration: durationMs }),
  success: (message) => toast.success(message),
  error: (message) => toast.error(message),
};

/** A load failure whose message is already the one docs/product/specification.md §8 shows. */
export class FlowLoadError extends Error {}

function reason(error: unknown): string | null {
  return error instanceof ApiRequestError ? error.message : null;
}

/**
 * docs/product/specification.md §4, "Flow configurations": load the owner's flows; if some do not exist
 * yet, initialise the defaults; if stored webhook URLs are outdated, say so and run the
 * fix-up. Each step fails with its own specified message (docs/product/specification.md §8).
 */
export async function loadFlows(notify: FlowNotifier = toastNotifier): Promise<Flow[]> {
  let flows: Flow[];
  try {
    flows = (await callEndpoint(endpoints.flows.list)).flows;
  } catch (error) {
    throw failure(notify, error, flowMessages.loadError);
  }
  if (flows.length < flowTypes.length) {
    try {
      flows = (await callEndpoint(endpoints.flows.initialize)).flows;
    } catch (error) {
      throw failure(notify, error, flowMessages.initializeError);
    }
  }
  if (flows.some((flow) => flow.webhookUrlOutdated)) {
    notify.info(flowMessages.webhookUrlsNeedUpdate, WEBHOOK_FORMAT_TOAST_MS);
    try {
      const fixed = await callEndpoint(endpoints.flows.fixWebhookUrls);
      flows = fixed.flows;
      notify.success(flowMessages.webhookUrlsUpdated(fixed.updated));
    } catch (error) {
      // The flows loaded fine; only their URLs stay as they were until the next load.
      notify.error(reason(error) === null ? flowMessages.updateFailed : flowMessages.updateError(reason(error)!));
    }
  }
  return flows;
}

function failure(notify: FlowNotifier, error: unknown, wording: (message: string) => string): Error {
  // Told to wait: the query waits and asks again (with the page's busy note), so no error yet.
  if (isBusyError(error)) return error;
  const message = reason(error) === null ? flowMessages.loadFailed : wording(reason(error)!);
  notify.error(message);
  return new FlowLoadError(message);
}

/**
 * The signed-in owner's four flows, loaded once per session (the cache is dropped at
 * sign-out) and kept current by `useSaveFlow`.
 */
export function useFlows() {
  return useQuery({ queryKey: flowKeys.all, queryFn: () => loadFlows(), staleTime: Infinity, retry: retryWhenBusy });
}

/** Starts loading the flows ahead of the first flow page, e.g. right after sign-in. */
export function prefetchFlows(queryClient: QueryClient): Promise<void> {
  return queryClient.prefetchQuery({ queryKey: flowKeys.all, queryFn: () => loadFlows(), staleTime: Infinity, retry: retryWhenBusy });
}

/** Saves one flow and replaces just that flow in the local copy. */
export function useSaveFlow(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateFlowInput) => callEndpoint(endpoints.flows.update, { params: { flowType }, body: input }),
    onSuccess: ({ flow }) => {
      queryClient.setQueryData<Flow[]>(flowKeys.all, (flows) => flows?.map((existing) => (existing.flowType === flow.flowType ? flow : existing)));
    },
  });
}

/** "Rotate URL": the flow gets a new webhook URL; the local copy of that flow is replaced. */
export function useRotateWebhookUrl(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (graceMinutes: WebhookUrlGraceMinutes) =>
      (await callEndpoint(endpoints.flows.rotateWebhookUrl, { params: { flowType }, body: { graceMinutes } })).flow,
    onSuccess: (flow) => {
      queryClient.setQueryData<Flow[]>(flowKeys.all, (flows) => flows?.map((existing) => (existing.flowType === flow.flowType ? flow : existing)));
    },
  });
}
