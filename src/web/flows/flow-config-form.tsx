import { useMemo, type FormEvent } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { toast } from '../app/toast.ts';
import { Button } from '../ui/button.tsx';
import { ApiRequestError } from '../app/api-client.ts';
import { deferredResolver } from '../app/deferred-resolver.ts';
import { flowHasWait, type FlowType } from '../../shared/flows/flow-types.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import { formErrorFor, toFormValues, toUpdateInput, type FlowFormOutput, type FlowFormValues } from './flow-form.ts';
import { useSaveFlow } from './use-flows.ts';
import { ActiveAndWebhookUrlFields, KlaviyoEventField } from './flow-run-fields.tsx';
import { WaitFieldset } from './flow-wait-fieldset.tsx';
import { LimitsFieldset } from './flow-limits-fieldset.tsx';
import { CostFieldset } from './flow-cost-fieldset.tsx';
import { TextRulesFieldset } from './text-rules-fieldset.tsx';
import { RecommendationFields } from './recommendation-fields.tsx';
import { AssistantsSection } from './flow-assistants-section.tsx';

/**
 * The form's checks (the shared flow schemas, and zod), fetched when the form is first
 * focused or submitted: the flow page and its settings show without them.
 */
function flowFormChecks(hasWait: boolean, flowType: FlowType) {
  return deferredResolver<FlowFormValues, FlowFormOutput>(async () => (await import('./flow-form-checks.ts')).flowFormResolver(hasWait, flowType));
}

/**
 * The configuration form (docs/product/specification.md §2), the same for every flow;
 * abandonment flows add their wait. Each part reads the form from its context and
 * registers its fields as it renders; the form itself registers none, and no part renders
 * another that has fields, so they register in the order shown, which is the order a
 * failed submit looks for the field to focus.
 */
export function FlowConfigForm({ flow, onSaved, onCancel }: { flow: Flow; onSaved: () => void; onCancel?: (() => void) | undefined }) {
  const hasWait = flowHasWait(flow.flowType);
  // Kept across renders: a new one would build the checks again the next time they run.
  const checks = useMemo(() => flowFormChecks(hasWait, flow.flowType), [hasWait, flow.flowType]);
  const form = useForm<FlowFormValues, unknown, FlowFormOutput>({
    resolver: checks.resolver,
    defaultValues: toFormValues(flow),
  });
  const save = useSaveFlow(flow.flowType);

  const submit = form.handleSubmit(async (values) => {
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
  // Only the checks can fail here (their chunk could not be fetched); saving is caught above.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    submit(event).catch((error: unknown) => toast.error(error instanceof ApiRequestError ? flowMessages.saveError(error.message) : flowMessages.updateFailed));
  };

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} onFocus={checks.preload} noValidate className="space-y-6" aria-label="Flow configuration">
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
