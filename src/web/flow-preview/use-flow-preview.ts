import { useMutation } from '@tanstack/react-query';
import { callEndpoint } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';

/**
 * Runs the flow's saved assistants for its sample event, or for the past event `eventId`
 * names (blank: the sample). Nothing is delivered, so nothing cached changes.
 */
export function useFlowPreview(flow: Flow) {
  return useMutation({
    mutationFn: (eventId: string) =>
      callEndpoint(endpoints.flows.preview, {
        params: { flowType: flow.flowType },
        body: { eventId: eventId.trim() || null, assistants: flow.assistants, textRules: flow.textRules, recommendations: flow.recommendations },
      }),
  });
}
