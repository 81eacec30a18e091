import { useFormContext } from 'react-hook-form';
import { SelectField, TextField } from '../ui/field.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { MAX_REUSE_WINDOW_HOURS } from '../../shared/flows/flow-limits.ts';
import { flowCapMessages } from '../../shared/flows/flow-messages.ts';
import type { FlowFormValues } from './flow-form.ts';

/**
 * What the AI costs: a budget per day, and the ways to pay less for the same texts. The
 * flex tier is offered only for the flows that wait (the abandonment flows): it answers more slowly.
 */
export function CostFieldset({ hasWait }: { hasWait: boolean }) {
  const { register, formState } = useFormContext<FlowFormValues>();
  const errors = formState.errors;
  return (
    <fieldset className="space-y-4">
      <legend className="text-sm font-semibold text-slate-800">Cost</legend>
      <TextField
        label={flowCapMessages.dailyBudgetLabel}
        inputMode="decimal"
        placeholder="No budget"
        className="max-w-40"
        hint={flowCapMessages.dailyBudgetHint}
        error={errors.dailyBudgetUsd?.message}
        {...register('dailyBudgetUsd')}
      />
      <SelectField label={flowCapMessages.overBudgetLabel} {...register('overBudget')}>
        <option value="wait">{flowCapMessages.overBudgetWait}</option>
        <option value="skip">{flowCapMessages.overBudgetSkip}</option>
      </SelectField>
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
        {...register('reuseWindowHours')}
      />
      {hasWait ? (
        <div className="space-y-1">
          <CheckboxField label={flowCapMessages.useFlexTierLabel} {...register('useFlexTier')} />
          <p className="text-xs text-slate-600">{flowCapMessages.useFlexTierHint}</p>
        </div>
      ) : null}
    </fieldset>
  );
}
