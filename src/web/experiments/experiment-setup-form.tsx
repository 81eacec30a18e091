import { useId } from 'react';
import { Controller, get, useFieldArray, useForm, useFormState, useWatch, type Control } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Plus, Trash2 } from 'lucide-react';
import { toast } from '../app/toast.ts';
import { ApiRequestError } from '../app/api-client.ts';
import { Button } from '../ui/button.tsx';
import { TextAreaField, TextField } from '../ui/field.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { Alert } from '../ui/alert.tsx';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import {
  currencyCodeSchema,
  experimentSetupSchema,
  type Experiment,
  type ExperimentObjective,
  type ExperimentSetup,
  type ExperimentSetupInput,
  type ExperimentSplit,
} from '../../shared/experiments/experiment-schemas.ts';
import {
  DEFAULT_HOLDOUT_PERCENT,
  DEFAULT_OBJECTIVE_CURRENCY,
  DEFAULT_MIN_EXPOSURES,
  experimentArmKeys,
  experimentObjectives,
  MAX_ARMS,
  MAX_HOLDOUT_PERCENT,
  MAX_MIN_EXPOSURES,
  MIN_MIN_EXPOSURES,
} from '../../shared/experiments/experiment-settings.ts';
import { experimentTexts as t } from './experiment-texts.ts';
import { useSetUpExperiment } from './use-experiments.ts';
import { useRevenue } from '../attribution/use-revenue.ts';

type Assistants = Flow['assistants'];
type Prompts = Record<string, string>;

/** The flow's assistants' prompts, each taken from `prompts` where it has one. */
function promptsFor(assistants: Assistants, prompts: Prompts = {}): Prompts {
  return Object.fromEntries(assistants.map((assistant) => [assistant.klaviyo_property, prompts[assistant.klaviyo_property] ?? assistant.prompt_template]));
}

/**
 * What the form starts with: variant A with the flow's prompts and the defaults, or the
 * running experiment as it is (its prompts matched to the flow's assistants as they are now).
 */
function defaultsFor(flow: Flow, current: Experiment | null): ExperimentSetupInput {
  if (!current) {
    return {
      arms: [{ prompts: promptsFor(flow.assistants), shopperContext: true }],
      holdoutPercent: DEFAULT_HOLDOUT_PERCENT,
      split: 'fixed',
      minExposures: DEFAULT_MIN_EXPOSURES,
      autoPromote: false,
      objective: 'conversion',
      objectiveCurrency: null,
    };
  }
  const arms = [...current.arms].sort((a, b) => experimentArmKeys.indexOf(a.key) - experimentArmKeys.indexOf(b.key));
  return {
    arms: arms.map((arm) => ({ prompts: promptsFor(flow.assistants, arm.prompts), shopperContext: arm.shopperContext })),
    holdoutPercent: current.holdoutPercent,
    split: current.split,
    minExposures: current.minExposures,
    autoPromote: current.autoPromote,
    objective: current.objective,
    objectiveCurrency: current.objectiveCurrency,
  };
}

/**
 * The currency a revenue objective starts with: the one most of the shop's credited orders came
 * in lately, else one the experiment has seen, else USD.
 */
function suggestedCurrency(shopRevenue: ReadonlyArray<{ currency: string | null; orders: number }>, current: Experiment | null): string {
  const valid = (currency: string | null): currency is string => currency !== null && currencyCodeSchema.safeParse(currency).success;
  const shop = shopRevenue.filter((row) => valid(row.currency)).sort((a, b) => b.orders - a.orders)[0];
  if (shop) return shop.currency!;
  const seen = current?.groups.flatMap((group) => group.revenue.map((row) => row.currency)).find(valid);
  return seen ?? DEFAULT_OBJECTIVE_CURRENCY;
}

/** The currency field's text as the schema wants it: trimmed, in capitals, nothing at all as null. */
const currencyValue = (value: unknown) => (typeof value === 'string' ? (value.trim() === '' ? null : value.trim().toUpperCase()) : value);

/** The form's address of one prompt. A property may hold dots: react-hook-form's set and get split it alike. */
const promptPath = (index: number, property: string) => `arms.${index}.prompts.${property}`;

/**
 * Starts an experiment, or changes the running one (`current`): one textarea per assistant
 * per variant and whether it uses the shopper's context, what decides the best variant (and
 * in which currency), the holdout, the split, the minimum and automatic promotion. Judged by the
 * API's own schema, so the form shows the server's messages.
 */
export function ExperimentSetupForm({ flow, current, onDone, onCancel }: { flow: Flow; current: Experiment | null; onDone: () => void; onCancel?: (() => void) | undefined }) {
  const form = useForm<ExperimentSetupInput, unknown, ExperimentSetup>({
    resolver: zodResolver(experimentSetupSchema),
    defaultValues: defaultsFor(flow, current),
  });
  const { fields, append, remove } = useFieldArray({ control: form.control, name: 'arms' });
  const setUp = useSetUpExperiment(flow.flowType);
  const shopRevenue = useRevenue(7);
  const split = useWatch({ control: form.control, name: 'split' });
  const objective = useWatch({ control: form.control, name: 'objective' });
  const autoPromote = useWatch({ control: form.control, name: 'autoPromote' });
  const showMinimum = split === 'adaptive' || autoPromote === true;
  const ids = { variants: useId(), settings: useId(), split: useId(), splitError: useId(), objective: useId(), objectiveHint: useId(), objectiveError: useId() };
  const errors = form.formState.errors;
  const armsError = errors.arms?.root?.message ?? errors.arms?.message;
  const failure = setUp.error ? (setUp.error instanceof ApiRequestError ? setUp.error.message : t.saveFailed) : null;

  /** Hiding the minimum must not leave an error nobody can see blocking the form: it goes back to its default. */
  const keepMinimumValid = (nextSplit: ExperimentSplit | undefined, nextAutoPromote: boolean | undefined) => {
    if (nextSplit === 'adaptive' || nextAutoPromote === true) return;
    const minimum = form.getValues('minExposures');
    if (typeof minimum === 'number' && Number.isInteger(minimum) && minimum >= MIN_MIN_EXPOSURES && minimum <= MAX_MIN_EXPOSURES) return;
    form.setValue('minExposures', DEFAULT_MIN_EXPOSURES);
    form.clearErrors('minExposures');
  };
  const splitField = form.register('split', { onChange: (event: { target: { value: ExperimentSplit } }) => keepMinimumValid(event.target.value, form.getValues('autoPromote')) });
  const autoPromoteField = form.register('autoPromote', { onChange: (event: { target: { checked: boolean } }) => keepMinimumValid(form.getValues('split'), event.target.checked) });

  /**
   * Revenue starts with a sensible currency rather than an empty field; back to conversion, a
   * currency nobody can see any more must not block the form, so an unusable one is dropped.
   */
  const objectiveField = form.register('objective', {
    onChange: (event: { target: { value: ExperimentObjective } }) => {
      const currency = form.getValues('objectiveCurrency');
      if (event.target.value === 'revenue_per_exposure') {
        if (currency === null || currency === undefined) form.setValue('objectiveCurrency', suggestedCurrency(shopRevenue.data?.total.revenue ?? [], current));
      } else if (!currencyCodeSchema.safeParse(currency).success) {
        form.setValue('objectiveCurrency', null);
      }
      form.clearErrors('objectiveCurrency');
    },
  });

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const answer = await setUp.mutateAsync(values);
      toast.success(answer.message);
      onDone();
    } catch (error) {
      if (!(error instanceof ApiRequestError)) return;
      // The server's messages under the fields it names; its message stays above the buttons.
      const known = new Set([
        'holdoutPercent',
        'split',
        'minExposures',
        'autoPromote',
        'objective',
        'objectiveCurrency',
        ...values.arms.flatMap((arm, index) => Object.keys(arm.prompts).map((property) => promptPath(index, property))),
      ]);
      for (const [field, message] of Object.entries(error.body.fieldErrors ?? {})) {
        if (known.has(field)) form.setError(field as 'holdoutPercent', { type: 'server', message });
      }
    }
  });

  const addVariant = () => {
    const promptsOfA = form.getValues('arms.0.prompts');
    append({ prompts: promptsFor(flow.assistants, promptsOfA), shopperContext: true });
  };

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label={current ? t.changeFormLabel : t.formLabel}>
      {current ? <Alert tone="info">{t.changeNote}</Alert> : <p className="text-sm text-slate-700">{t.intro}</p>}

      <section aria-labelledby={ids.variants} className="space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h3 id={ids.variants} className="text-base font-semibold text-slate-900">
            {t.variantsHeading}
          </h3>
          <Button variant="secondary" onClick={addVariant} disabled={fields.length >= MAX_ARMS || flow.assistants.length === 0} title={fields.length >= MAX_ARMS ? t.addVariantLimit : undefined}>
            <Plus aria-hidden="true" className="h-4 w-4" />
            {t.addVariant}
          </Button>
        </div>
        {flow.assistants.length === 0 ? <Alert tone="warning">{t.noAssistants}</Alert> : null}
        {!current ? <p className="text-xs text-slate-600">{t.variantAHint}</p> : null}
        {armsError ? (
          <p role="alert" className="text-sm text-red-700">
            {armsError}
          </p>
        ) : null}
        {fields.map((field, index) => (
          <VariantFields key={field.id} control={form.control} index={index} assistants={flow.assistants} onRemove={index === 0 ? undefined : () => remove(index)} />
        ))}
      </section>

      <fieldset className="min-w-0 space-y-4">
        <legend className="text-base font-semibold text-slate-900">{t.settingsHeading}</legend>
        <div className="space-y-1">
          <label htmlFor={ids.objective} className="block text-sm font-medium text-slate-700">
            {m.objectiveLabel}
          </label>
          <select
            id={ids.objective}
            aria-describedby={[ids.objectiveHint, errors.objective ? ids.objectiveError : null].filter(Boolean).join(' ')}
            aria-invalid={errors.objective ? true : undefined}
            className="block rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
            {...objectiveField}
          >
            {experimentObjectives.map((value) => (
              <option key={value} value={value}>
                {m.objectiveNames[value]}
              </option>
            ))}
          </select>
          <p id={ids.objectiveHint} className="text-xs text-slate-600">
            {m.objectiveHint}
          </p>
          {errors.objective ? (
            <p id={ids.objectiveError} className="text-sm text-red-700">
              {errors.objective.message}
            </p>
          ) : null}
        </div>
        {objective === 'revenue_per_exposure' ? (
          <TextField
            label={m.objectiveCurrencyLabel}
            autoCapitalize="characters"
            autoComplete="off"
            maxLength={3}
            className="max-w-28 uppercase"
            hint={m.objectiveCurrencyHint}
            error={errors.objectiveCurrency?.message}
            {...form.register('objectiveCurrency', { setValueAs: currencyValue })}
          />
        ) : null}
        <TextField
          label={t.holdoutLabel}
          type="number"
          inputMode="numeric"
          min={0}
          max={MAX_HOLDOUT_PERCENT}
          step={1}
          className="max-w-40"
          hint={t.holdoutHint}
          error={errors.holdoutPercent?.message}
          {...form.register('holdoutPercent', { valueAsNumber: true })}
        />
        <fieldset className="min-w-0 space-y-1" aria-describedby={errors.split ? ids.splitError : undefined}>
          <legend id={ids.split} className="text-sm font-medium text-slate-700">
            {t.splitLegend}
          </legend>
          {(['fixed', 'adaptive'] as const).map((value) => (
            <label key={value} className="flex items-start gap-2 text-sm text-slate-700">
              <input
                type="radio"
                value={value}
                className="mt-0.5 h-4 w-4 shrink-0 border-slate-300 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
                {...splitField}
              />
              {t.splitOptions[value]}
            </label>
          ))}
          {errors.split ? (
            <p id={ids.splitError} className="text-sm text-red-700">
              {errors.split.message}
            </p>
          ) : null}
        </fieldset>
        <div className="space-y-1">
          <CheckboxField label={t.autoPromoteLabel} {...autoPromoteField} />
          {errors.autoPromote ? <p className="text-sm text-red-700">{errors.autoPromote.message}</p> : null}
        </div>
        {showMinimum ? (
          <TextField
            label={t.minExposuresLabel}
            type="number"
            inputMode="numeric"
            min={MIN_MIN_EXPOSURES}
            max={MAX_MIN_EXPOSURES}
            step={1}
            className="max-w-40"
            hint={t.minExposuresHint}
            error={errors.minExposures?.message}
            {...form.register('minExposures', { valueAsNumber: true })}
          />
        ) : null}
      </fieldset>

      {failure ? (
        <Alert tone="error" title={t.saveFailed}>
          {failure}
        </Alert>
      ) : null}
      <div className="flex flex-wrap justify-end gap-3">
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel} disabled={form.formState.isSubmitting}>
            {t.cancel}
          </Button>
        ) : null}
        <Button type="submit" busy={form.formState.isSubmitting} disabled={flow.assistants.length === 0}>
          {current ? (form.formState.isSubmitting ? t.saving : t.saveChanges) : form.formState.isSubmitting ? t.starting : t.start}
        </Button>
      </div>
    </form>
  );
}

/** One variant: a textarea per assistant, labelled with its name, inside the variant's named group. */
function VariantFields({ control, index, assistants, onRemove }: { control: Control<ExperimentSetupInput, unknown, ExperimentSetup>; index: number; assistants: Assistants; onRemove?: (() => void) | undefined }) {
  const key = experimentArmKeys[index] ?? String(index + 1);
  const headingId = useId();
  const { errors } = useFormState({ control, name: `arms.${index}.prompts` });
  const armError = (get(errors, `arms.${index}.prompts`) as { message?: string } | undefined)?.message;
  return (
    <div role="group" className="min-w-0 space-y-3 rounded-md border border-slate-200 p-4" aria-labelledby={headingId} data-variant={key}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h4 id={headingId} className="text-sm font-semibold text-slate-800">
          {t.variant(key)}
        </h4>
        {onRemove ? (
          <Button variant="secondary" onClick={onRemove} aria-label={t.removeVariant(key)}>
            <Trash2 aria-hidden="true" className="h-4 w-4" />
            {t.remove}
          </Button>
        ) : null}
      </div>
      {armError ? (
        <p role="alert" className="text-sm text-red-700">
          {armError}
        </p>
      ) : null}
      <Controller
        control={control}
        name={`arms.${index}.prompts`}
        render={({ field }) => (
          <div className="space-y-3">
            {assistants.map((assistant, position) => {
              const prompts: Prompts = field.value ?? {};
              const error = get(errors, promptPath(index, assistant.klaviyo_property)) as { message?: string } | undefined;
              return (
                <TextAreaField
                  key={assistant.klaviyo_property}
                  label={assistant.name}
                  value={prompts[assistant.klaviyo_property] ?? ''}
                  onChange={(event) => field.onChange({ ...prompts, [assistant.klaviyo_property]: event.target.value })}
                  onBlur={field.onBlur}
                  ref={position === 0 ? field.ref : undefined}
                  error={error?.message}
                />
              );
            })}
          </div>
        )}
      />
      <Controller
        control={control}
        name={`arms.${index}.shopperContext`}
        render={({ field }) => (
          <CheckboxField
            label={m.shopperContextLabel}
            checked={field.value ?? true}
            onChange={(event) => field.onChange(event.target.checked)}
            onBlur={field.onBlur}
            name={field.name}
            ref={field.ref}
          />
        )}
      />
    </div>
  );
}
