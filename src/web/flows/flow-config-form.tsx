import { useId } from 'react';
import { FormProvider, useFieldArray, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from '../app/toast.ts';
import { Copy, Plus } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { TextAreaField, TextField } from '../ui/field.tsx';
import { ApiRequestError } from '../app/api-client.ts';
import { flowHasWait } from '../../shared/flows/flow-types.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { MAX_ASSISTANTS_PER_FLOW, MAX_DAILY_GENERATION_CAP, MAX_REUSE_WINDOW_HOURS, MAX_SHOPPER_COOLDOWN_HOURS, MIN_DAILY_GENERATION_CAP } from '../../shared/flows/flow-schemas.ts';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { flowCapMessages, flowMessages, textRuleMessages } from '../../shared/flows/flow-messages.ts';
import { waitUnits } from '../../shared/flows/flow-wait.ts';
import { textLanguages } from '../../shared/text-checks/text-languages.ts';
import { AssistantFields } from './assistant-fields.tsx';
import { RecommendationFields } from './recommendation-fields.tsx';
import { emptyAssistant, flowFormSchema, formErrorFor, toFormValues, toUpdateInput, type FlowFormOutput, type FlowFormValues } from './flow-form.ts';
import { useSaveFlow } from './use-flows.ts';
import { Alert } from '../ui/alert.tsx';
import { useExperiments } from '../experiments/use-experiments.ts';
import { experimentMessages } from '../../shared/experiments/experiment-messages.ts';

async function copyToClipboard(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast.success(flowMessages.webhookUrlCopied);
  } catch {
    toast.error(flowMessages.webhookUrlCopyFailed);
  }
}

/** The configuration form (docs/product/specification.md §2), the same for every flow; abandonment flows add their wait. */
export function FlowConfigForm({ flow, onSaved, onCancel }: { flow: Flow; onSaved: () => void; onCancel?: (() => void) | undefined }) {
  const hasWait = flowHasWait(flow.flowType);
  const form = useForm<FlowFormValues, unknown, FlowFormOutput>({
    resolver: zodResolver(flowFormSchema(hasWait, flow.flowType)),
    defaultValues: toFormValues(flow),
  });
  const { fields, append, remove } = useFieldArray({ control: form.control, name: 'assistants' });
  const save = useSaveFlow(flow.flowType);
  // While an experiment runs, shoppers get its variants' prompts, not the ones edited here.
  const experimentRuns = Boolean(useExperiments(flow.flowType).data?.current);
  const ids = {
    active: useId(),
    webhook: useId(),
    webhookHint: useId(),
    waitAmount: useId(),
    waitUnit: useId(),
    waitHint: useId(),
    waitError: useId(),
    textRulesHint: useId(),
    language: useId(),
    languageError: useId(),
    onFailedChecksError: useId(),
  };
  const errors = form.formState.errors;
  const webhookUrl = flow.generatedWebhookUrl;

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
        <div className="flex items-center gap-3">
          <input id={ids.active} type="checkbox" className="h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-indigo-500" {...form.register('isActive')} />
          <label htmlFor={ids.active} className="text-sm font-medium text-slate-800">
            Active
          </label>
        </div>

        <div className="space-y-1">
          <label htmlFor={ids.webhook} className="block text-sm font-medium text-slate-700">
            Webhook URL
          </label>
          <div className="flex gap-2">
            <input
              id={ids.webhook}
              readOnly
              value={webhookUrl}
              aria-describedby={ids.webhookHint}
              className="block w-full rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm text-slate-800"
            />
            <Button variant="secondary" onClick={() => void copyToClipboard(webhookUrl)} aria-label="Copy webhook URL">
              <Copy aria-hidden="true" className="h-4 w-4" />
              Copy
            </Button>
          </div>
          <p id={ids.webhookHint} className="text-xs text-slate-600">
            {flow.webhookUrl ? 'Generated by Flowsmith for this flow.' : 'Generated by Flowsmith; it is kept when you save this flow.'}
          </p>
        </div>

        {hasWait ? (
          <fieldset className="space-y-1">
            <legend className="text-sm font-medium text-slate-700">Wait before generating content</legend>
            <div className="flex gap-2">
              <label htmlFor={ids.waitAmount} className="sr-only">
                Wait amount
              </label>
              <input
                id={ids.waitAmount}
                type="number"
                min={0}
                step={1}
                inputMode="numeric"
                aria-invalid={errors.waitAmount ? true : undefined}
                aria-describedby={[ids.waitHint, errors.waitAmount ? ids.waitError : null].filter(Boolean).join(' ')}
                className={`block w-32 rounded-md border px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500 ${errors.waitAmount ? 'border-red-500' : 'border-slate-300'}`}
                {...form.register('waitAmount')}
              />
              <label htmlFor={ids.waitUnit} className="sr-only">
                Wait unit
              </label>
              <select
                id={ids.waitUnit}
                className="block rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
                {...form.register('waitUnit')}
              >
                {waitUnits.map((unit) => (
                  <option key={unit} value={unit}>
                    {unit}
                  </option>
                ))}
              </select>
            </div>
            <p id={ids.waitHint} className="text-xs text-slate-600">
              From 0 minutes to 7 days after the shopper&apos;s last activity. Applies to events that come straight from Shopify.
            </p>
            {errors.waitAmount ? (
              <p id={ids.waitError} className="text-sm text-red-700">
                {errors.waitAmount.message}
              </p>
            ) : null}
          </fieldset>
        ) : null}

        <TextField
          label="Klaviyo event (optional)"
          placeholder="AI content ready"
          hint="Sent to Klaviyo once the content is on the profile, so a Klaviyo flow can start from it."
          error={errors.klaviyoEventName?.message}
          {...form.register('klaviyoEventName')}
        />

        {/* Cost and abuse limits: whatever reaches the URL, the owner's OpenAI and Klaviyo bills stay bounded. */}
        <fieldset className="space-y-4">
          <legend className="text-sm font-semibold text-slate-800">Limits</legend>
          <TextField
            label={flowCapMessages.shopperCooldownLabel}
            type="number"
            inputMode="numeric"
            min={0}
            max={MAX_SHOPPER_COOLDOWN_HOURS}
            step={1}
            className="max-w-40"
            hint={flowCapMessages.shopperCooldownHint(MAX_SHOPPER_COOLDOWN_HOURS)}
            error={errors.shopperCooldownHours?.message}
            {...form.register('shopperCooldownHours')}
          />
          <TextField
            label={flowCapMessages.dailyGenerationCapLabel}
            type="number"
            inputMode="numeric"
            min={MIN_DAILY_GENERATION_CAP}
            max={MAX_DAILY_GENERATION_CAP}
            step={1}
            className="max-w-40"
            hint={flowCapMessages.dailyGenerationCapHint(MAX_DAILY_GENERATION_CAP)}
            error={errors.dailyGenerationCap?.message}
            {...form.register('dailyGenerationCap')}
          />
        </fieldset>

        {/* What the AI costs: a budget per day, and the ways to pay less for the same texts. */}
        <fieldset className="space-y-4">
          <legend className="text-sm font-semibold text-slate-800">Cost</legend>
          <TextField
            label={flowCapMessages.dailyBudgetLabel}
            inputMode="decimal"
            placeholder="No budget"
            className="max-w-40"
            hint={flowCapMessages.dailyBudgetHint}
            error={errors.dailyBudgetUsd?.message}
            {...form.register('dailyBudgetUsd')}
          />
          <div className="space-y-1">
            <label htmlFor={`${ids.active}-over-budget`} className="block text-sm font-medium text-slate-700">
              {flowCapMessages.overBudgetLabel}
            </label>
            <select
              id={`${ids.active}-over-budget`}
              className="block rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
              {...form.register('overBudget')}
            >
              <option value="wait">{flowCapMessages.overBudgetWait}</option>
              <option value="skip">{flowCapMessages.overBudgetSkip}</option>
            </select>
          </div>
          <TextField
            label={flowCapMessages.reuseWindowLabel}
            type="number"
            inputMode="numeric"
            min={0}
            max={MAX_REUSE_WINDOW_HOURS}
            step={1}
            className="max-w-40"
            hint={flowCapMessages.reuseWindowHint(MAX_REUSE_WINDOW_HOURS)}
            error={errors.reuseWindowHours?.message}
            {...form.register('reuseWindowHours')}
          />
          {hasWait ? (
            <div className="space-y-1">
              <CheckboxField label={flowCapMessages.useFlexTierLabel} {...form.register('useFlexTier')} />
              <p className="text-xs text-slate-600">{flowCapMessages.useFlexTierHint}</p>
            </div>
          ) : null}
        </fieldset>

        {/* What every written text is checked against before it reaches a shopper's profile. */}
        <fieldset className="min-w-0 space-y-4" aria-describedby={ids.textRulesHint}>
          <legend className="text-sm font-semibold text-slate-800">{textRuleMessages.sectionTitle}</legend>
          <p id={ids.textRulesHint} className="text-xs text-slate-600">
            {textRuleMessages.sectionHint}
          </p>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="space-y-2">
              <TextAreaField
                label={textRuleMessages.discountCodesLabel}
                hint={textRuleMessages.discountCodesHint}
                error={errors.textRules?.discountCodes?.message}
                spellCheck={false}
                {...form.register('textRules.discountCodes')}
              />
              <CheckboxField label={textRuleMessages.offersCouponLabel} {...form.register('textRules.offersCoupon')} />
            </div>
            <TextAreaField
              label={textRuleMessages.bannedPhrasesLabel}
              hint={textRuleMessages.bannedPhrasesHint}
              error={errors.textRules?.bannedPhrases?.message}
              {...form.register('textRules.bannedPhrases')}
            />
          </div>
          <div className="space-y-1">
            <label htmlFor={ids.language} className="block text-sm font-medium text-slate-700">
              {textRuleMessages.languageLabel}
            </label>
            <select
              id={ids.language}
              aria-invalid={errors.textRules?.language ? true : undefined}
              aria-describedby={errors.textRules?.language ? ids.languageError : undefined}
              className={`block max-w-full rounded-md border bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500 ${errors.textRules?.language ? 'border-red-500' : 'border-slate-300'}`}
              {...form.register('textRules.language')}
            >
              <option value="shopper">{textRuleMessages.languageShopper}</option>
              {textLanguages.map((language) => (
                <option key={language.code} value={language.code}>
                  {language.name}
                </option>
              ))}
            </select>
            {errors.textRules?.language ? (
              <p id={ids.languageError} className="text-sm text-red-700">
                {errors.textRules.language.message}
              </p>
            ) : null}
          </div>
          <fieldset className="min-w-0 space-y-1" aria-describedby={errors.textRules?.onFailedChecks ? ids.onFailedChecksError : undefined}>
            <legend className="text-sm font-medium text-slate-700">{textRuleMessages.onFailedChecksLabel}</legend>
            {(
              [
                ['fallback', textRuleMessages.onFailedChecksFallback],
                ['nothing', textRuleMessages.onFailedChecksNothing],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="flex items-center gap-2 text-sm text-slate-700">
                <input type="radio" value={value} className="h-4 w-4 border-slate-300 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600" {...form.register('textRules.onFailedChecks')} />
                {label}
              </label>
            ))}
            {errors.textRules?.onFailedChecks ? (
              <p id={ids.onFailedChecksError} className="text-sm text-red-700">
                {errors.textRules.onFailedChecks.message}
              </p>
            ) : null}
          </fieldset>
          <div className="grid min-w-0 gap-4 sm:grid-cols-2">
            <div className="space-y-1">
              <CheckboxField label={textRuleMessages.requireApprovalLabel} {...form.register('textRules.requireApproval')} />
              <p className="text-xs text-slate-600">{textRuleMessages.requireApprovalHint}</p>
            </div>
            <TextField
              label={textRuleMessages.autoApproveAfterLabel}
              hint={textRuleMessages.autoApproveAfterHint}
              inputMode="numeric"
              error={errors.textRules?.autoApproveAfter?.message}
              {...form.register('textRules.autoApproveAfter')}
            />
          </div>
        </fieldset>

        {/* Before the assistants, whose prompts may use {recommendations}. */}
        <RecommendationFields />

        <section className="space-y-4" aria-labelledby={`${ids.active}-assistants`}>
          <div className="flex items-center justify-between">
            <h2 id={`${ids.active}-assistants`} className="text-lg font-semibold">
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
            <AssistantFields key={field.id} flowType={flow.flowType} index={index} canRemove={fields.length > 1} onRemove={() => remove(index)} />
          ))}
        </section>

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
