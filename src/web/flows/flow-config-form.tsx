import { FormProvider, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from '../app/toast.ts';
import { Button } from '../ui/button.tsx';
import { ApiRequestError } from '../app/api-client.ts';
import { flowHasWait } from '../../shared/flows/flow-types.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import { flowFormSchema, formErrorFor, toFormValues, toUpdateInput, type FlowFormOutput, type FlowFormValues } from './flow-form.ts';
import { useSaveFlow } from './use-flows.ts';
import { ActiveAndWebhookUrlFields, KlaviyoEventField } from './flow-run-fields.tsx';
import { WaitFieldset } from './flow-wait-fieldset.tsx';
import { LimitsFieldset } from './flow-limits-fieldset.tsx';
import { CostFieldset } from './flow-cost-fieldset.tsx';
import { TextRulesFieldset } from './text-rules-fieldset.tsx';
import { RecommendationFields } from './recommendation-fields.tsx';
import { AssistantsSection } from './flow-assistants-section.tsx';

/**
 * The configuration form (docs/product/specification.md §2), the same for every flow;
 * abandonment flows add their wait. Each part reads the form from its context and
 * registers its fields as it renders; the form itself registers none, and no part renders
 * another that has fields, so they register in the order shown, which is the order a
 * failed submit looks for the field to focus.
 */
export function FlowConfigForm({ flow, onSaved, onCancel }: { flow: Flow; onSaved: () => void; onCancel?: (() => void) | undefined }) {
  const hasWait = flowHasWait(flow.flowType);
  const form = useForm<FlowFormValues, unknown, FlowFormOutput>({
    resolver: zodResolver(flowFormSchema(hasWait, flow.flowType)),
    defaultValues: toFormValues(flow),
  });
  const save = useSaveFlow(flow.flowType);

  const onSubmit = form.handleSubmit(async (values) => {
    const input = toUpdateInput(values, hasWait);
    try {
      const result = await save.mutateAsync(input);
      toast.success(result.firstSave ? flowMessages.saved : flowMessages.updated);
      if (result.webhookUrlRewritten) toast.info(flowMessages.webhookUrlRewritten);
      onSaved();
    } catch (error) {
      if (!(error instanceof ApiRequestError)) {
        toast.error(flowMessages.updateFailed);
        return;
      }
      for (const [apiField, apiMessage] of Object.entries(error.body.fieldErrors ?? {})) {
        const { field, message } = formErrorFor(apiField, apiMessage, input);
        form.setError(field as keyof FlowFormValues, { message });
      }
      toast.error(flowMessages.saveError(error.message));
    }
  });

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="Flow configuration">
        <ActiveAndWebhookUrlFields flow={flow} />
        {hasWait ? <WaitFieldset /> : null}
        <KlaviyoEventField />
        <LimitsFieldset />
        <CostFieldset hasWait={hasWait} />
        <TextRulesFieldset />
        {/* Before the assistants, whose prompts may use {recommendations}. */}
        <RecommendationFields />
        <AssistantsSection flowType={flow.flowType} />

        <div className="flex justify-end gap-3">
          {onCancel ? (
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          ) : null}
          <Button type="submit" disabled={form.formState.isSubmitting}>
            {form.formState.isSubmitting ? 'Saving…' : 'Save Configuration'}
          </Button>
        </div>
      </form>
    </FormProvider>
  );
}
