import { useMutation, useQuery } from '@tanstack/react-query';
import { toast } from '../app/toast.ts';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { requestMessages } from '../../shared/messages.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { webhookHandlerMessages as m } from '../../shared/webhooks/webhook-messages.ts';

/**
 * docs/product/specification.md §9: the handler page shows its result after 2 s; its
 * toasts stay 3 s (success) or 5 s (error).
 */
const HANDLER_RESULT_DELAY_MS = 2_000;
const HANDLER_SUCCESS_TOAST_MS = 3_000;
const HANDLER_ERROR_TOAST_MS = 5_000;

/** The webhooks' query keys. */
export const webhookKeys = {
  status: (flowType: string, flowId: string) => ['webhooks', 'status', flowType, flowId] as const,
};

/** What the handler page says went wrong: the server's words, or the generic ones. */
export function webhookStatusErrorMessage(error: unknown): string {
  return error instanceof ApiRequestError ? error.message : requestMessages.internal;
}

/**
 * The webhook handler page's real check of a webhook URL, answered no sooner than
 * `HANDLER_RESULT_DELAY_MS` and told as a toast. Asked once per visit: never again while
 * the page shows it (a second toast would repeat the first), afresh on the next visit, and
 * a page left before the answer raises no toast.
 */
export function useWebhookStatus(flowType: string, flowId: string) {
  return useQuery({
    queryKey: webhookKeys.status(flowType, flowId),
    queryFn: async ({ signal }) => {
      const minimumWait = new Promise((resolve) => setTimeout(resolve, HANDLER_RESULT_DELAY_MS));
      try {
        const result = await callEndpoint(endpoints.webhooks.status, { params: { flowType, flowId } });
        await minimumWait;
        if (!signal.aborted) {
          if (result.success) toast.success(result.message, { duration: HANDLER_SUCCESS_TOAST_MS });
          else toast.error(result.message, { duration: HANDLER_ERROR_TOAST_MS });
        }
        return result;
      } catch (error) {
        await minimumWait;
        if (!signal.aborted) toast.error(m.errorLine(webhookStatusErrorMessage(error)), { duration: HANDLER_ERROR_TOAST_MS });
        throw error;
      }
    },
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
}

/** The console's Send Test Webhook: the payload reaches the flow as an event; with `dryRun` its texts are written but not sent to Klaviyo. */
export function useSendTestWebhook(flowType: FlowType) {
  return useMutation({
    mutationFn: (input: { payload: string; dryRun: boolean }) => callEndpoint(endpoints.webhooks.testSend, { params: { flowType }, body: input }),
  });
}
