import { useFormContext } from 'react-hook-form';
import { TextField } from '../ui/field.tsx';
import { MAX_DAILY_GENERATION_CAP, MAX_SHOPPER_COOLDOWN_HOURS, MIN_DAILY_GENERATION_CAP } from '../../shared/flows/flow-limits.ts';
import { flowCapMessages } from '../../shared/flows/flow-messages.ts';
import type { FlowFormValues } from './flow-form.ts';

/** Cost and abuse limits: whatever reaches the URL, the owner's OpenAI and Klaviyo bills stay bounded. */
export function LimitsFieldset() {
  const { register, formState } = useFormContext<FlowFormValues>();
  const errors = formState.errors;
  return (
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
        {...register('shopperCooldownHours')}
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
        {...register('dailyGenerationCap')}
      />
    </fieldset>
  );
}
