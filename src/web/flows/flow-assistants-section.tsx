import { useId } from 'react';
import { useFieldArray, useFormContext } from 'react-hook-form';
import { Plus } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { Alert } from '../ui/alert.tsx';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { MAX_ASSISTANTS_PER_FLOW } from '../../shared/flows/flow-limits.ts';
import { experimentMessages } from '../../shared/experiments/experiment-messages.ts';
import { useExperiments } from '../experiments/use-experiments.ts';
import { AssistantFields } from './assistant-fields.tsx';
import { emptyAssistant, type FlowFormValues } from './flow-form.ts';

/** The flow's AI assistants, one to `MAX_ASSISTANTS_PER_FLOW`, each with its own fields. */
export function AssistantsSection({ flowType }: { flowType: FlowType }) {
  const { control, formState } = useFormContext<FlowFormValues>();
  const { fields, append, remove } = useFieldArray({ control, name: 'assistants' });
  // While an experiment runs, shoppers get its variants' prompts, not the ones edited here.
  const experimentRuns = Boolean(useExperiments(flowType).data?.current);
  const headingId = useId();
  const errors = formState.errors;
  return (
    <section className="space-y-4" aria-labelledby={headingId}>
      <div className="flex items-center justify-between">
        <h2 id={headingId} className="text-lg font-semibold">
          AI Assistants
        </h2>
        <Button variant="secondary" onClick={() => append({ ...emptyAssistant })} disabled={fields.length >= MAX_ASSISTANTS_PER_FLOW}>
          <Plus aria-hidden="true" className="h-4 w-4" />
          Add Assistant
        </Button>
      </div>
      {errors.assistants?.root?.message || errors.assistants?.message ? (
        <p role="alert" className="text-sm text-red-700">
          {errors.assistants.root?.message ?? errors.assistants.message}
        </p>
      ) : null}
      {experimentRuns ? (
        <Alert tone="info" title={experimentMessages.promptsWaitTitle}>
          {experimentMessages.promptsWait}
        </Alert>
      ) : null}
      {fields.map((field, index) => (
        <AssistantFields key={field.id} flowType={flowType} index={index} canRemove={fields.length > 1} onRemove={() => remove(index)} />
      ))}
    </section>
  );
}
