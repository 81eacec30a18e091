import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { ExperimentChangeResponse, ExperimentSetupInput, ExperimentsResponse, PromoteArm } from '../../shared/experiments/experiment-schemas.ts';
import { flowKeys } from '../flows/use-flows.ts';

/** Results move with every shopper and order: read again now and then while the page is open. */
const REFRESH_MS = 30_000;

/** The experiments' query keys. */
export const experimentKeys = {
  all: ['experiments'] as const,
  ofFlow: (flowType: FlowType) => ['experiments', flowType] as const,
};

/** A flow's current experiment (or none) and its past ones, newest first. */
export function useExperiments(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: experimentKeys.ofFlow(flowType),
    queryFn: async () => {
      const before = queryClient.getQueryData<ExperimentsResponse>(experimentKeys.ofFlow(flowType));
      const answer = await callEndpoint(endpoints.experiments.list, { params: { flowType } });
      // Promoted by itself meanwhile: the winner's prompts are the flow's now.
      if (before?.current && answer.past.some((experiment) => experiment.id === before.current!.id && experiment.winner !== null)) {
        await queryClient.invalidateQueries({ queryKey: flowKeys.all });
      }
      return answer;
    },
    refetchInterval: REFRESH_MS,
    retry: retryWhenBusy,
  });
}

/** Every change answers with the flow's experiments as they are now: the local copy becomes that answer. */
function keepAnswer(queryClient: QueryClient, flowType: FlowType, answer: ExperimentChangeResponse): void {
  const { current, past } = answer;
  queryClient.setQueryData<ExperimentsResponse>(experimentKeys.ofFlow(flowType), { current, past });
}

/** Starts an experiment, or changes the running one (new prompts or holdout start a new one). */
export function useSetUpExperiment(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (setup: ExperimentSetupInput) => callEndpoint(endpoints.experiments.setUp, { params: { flowType }, body: setup }),
    onSuccess: (answer) => keepAnswer(queryClient, flowType, answer),
  });
}

/** Promotes an arm by hand: its prompts become the flow's, so the flows are read again too. */
export function usePromoteArm(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (arm: PromoteArm['arm']) => callEndpoint(endpoints.experiments.promote, { params: { flowType }, body: { arm } }),
    onSuccess: async (answer) => {
      // The flows first, so a new experiment's form starts from the promoted prompts.
      await queryClient.invalidateQueries({ queryKey: flowKeys.all });
      keepAnswer(queryClient, flowType, answer);
      await queryClient.invalidateQueries({ queryKey: experimentKeys.ofFlow(flowType) });
    },
  });
}

/** Ends the running experiment without a winner; the flow keeps its prompts. */
export function useStopExperiment(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => callEndpoint(endpoints.experiments.stop, { params: { flowType } }),
    onSuccess: (answer) => keepAnswer(queryClient, flowType, answer),
  });
}
