import { useId } from 'react';
import { useFormContext } from 'react-hook-form';
import { waitUnits } from '../../shared/flows/flow-wait.ts';
import type { FlowFormValues } from './flow-form.ts';

/**
 * "Wait before generating content", of the abandonment flows: an amount and its unit side
 * by side, named by the legend, with one hint for both. Hand-written: the kit's fields each
 * show their own label and hint.
 */
export function WaitFieldset() {
  const { register, formState } = useFormContext<FlowFormValues>();
  const error = formState.errors.waitAmount;
  const ids = { amount: useId(), unit: useId(), hint: useId(), error: useId() };
  return (
    <fieldset className="space-y-1">
      <legend className="text-sm font-medium text-slate-700">Wait before generating content</legend>
      <div className="flex gap-2">
        <label htmlFor={ids.amount} className="sr-only">
          Wait amount
        </label>
        <input
          id={ids.amount}
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          aria-invalid={error ? true : undefined}
          aria-describedby={[ids.hint, error ? ids.error : null].filter(Boolean).join(' ')}
          className={`block w-32 rounded-md border px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500 ${error ? 'border-red-500' : 'border-slate-300'}`}
          {...register('waitAmount')}
        />
        <label htmlFor={ids.unit} className="sr-only">
          Wait unit
        </label>
        <select
          id={ids.unit}
          className="block rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
          {...register('waitUnit')}
        >
          {waitUnits.map((unit) => (
            <option key={unit} value={unit}>
              {unit}
            </option>
          ))}
        </select>
      </div>
      <p id={ids.hint} className="text-xs text-slate-600">
        From 0 minutes to 7 days after the shopper&apos;s last activity. Applies to events that come straight from Shopify.
      </p>
      {error ? (
        <p id={ids.error} className="text-sm text-red-700">
          {error.message}
        </p>
      ) : null}
    </fieldset>
  );
}
