import { useId } from 'react';
import { useFormContext } from 'react-hook-form';
import { SelectField, TextAreaField, TextField } from '../ui/field.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { textRuleMessages } from '../../shared/flows/flow-messages.ts';
import { textLanguages } from '../../shared/text-checks/text-languages.ts';
import type { FlowFormValues } from './flow-form.ts';

const onFailedChecksChoices = [
  ['fallback', textRuleMessages.onFailedChecksFallback],
  ['nothing', textRuleMessages.onFailedChecksNothing],
] as const;

/** What every written text is checked against before it reaches a shopper's profile. */
export function TextRulesFieldset() {
  const { register, formState } = useFormContext<FlowFormValues>();
  const errors = formState.errors.textRules;
  const ids = { hint: useId(), onFailedChecksError: useId() };
  return (
    <fieldset className="min-w-0 space-y-4" aria-describedby={ids.hint}>
      <legend className="text-sm font-semibold text-slate-800">{textRuleMessages.sectionTitle}</legend>
      <p id={ids.hint} className="text-xs text-slate-600">
        {textRuleMessages.sectionHint}
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        <div className="space-y-2">
          <TextAreaField
            label={textRuleMessages.discountCodesLabel}
            hint={textRuleMessages.discountCodesHint}
            error={errors?.discountCodes?.message}
            spellCheck={false}
            {...register('textRules.discountCodes')}
          />
          <CheckboxField label={textRuleMessages.offersCouponLabel} {...register('textRules.offersCoupon')} />
        </div>
        <TextAreaField
          label={textRuleMessages.bannedPhrasesLabel}
          hint={textRuleMessages.bannedPhrasesHint}
          error={errors?.bannedPhrases?.message}
          {...register('textRules.bannedPhrases')}
        />
      </div>
      <SelectField label={textRuleMessages.languageLabel} error={errors?.language?.message} className="max-w-full" {...register('textRules.language')}>
        <option value="shopper">{textRuleMessages.languageShopper}</option>
        {textLanguages.map((language) => (
          <option key={language.code} value={language.code}>
            {language.name}
          </option>
        ))}
      </SelectField>
      <fieldset className="min-w-0 space-y-1" aria-describedby={errors?.onFailedChecks ? ids.onFailedChecksError : undefined}>
        <legend className="text-sm font-medium text-slate-700">{textRuleMessages.onFailedChecksLabel}</legend>
        {/* Radio buttons under one legend: the kit has no field for them. */}
        {onFailedChecksChoices.map(([value, label]) => (
          <label key={value} className="flex items-center gap-2 text-sm text-slate-700">
            <input type="radio" value={value} className="h-4 w-4 border-slate-300 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600" {...register('textRules.onFailedChecks')} />
            {label}
          </label>
        ))}
        {errors?.onFailedChecks ? (
          <p id={ids.onFailedChecksError} className="text-sm text-red-700">
            {errors.onFailedChecks.message}
          </p>
        ) : null}
      </fieldset>
      <div className="grid min-w-0 gap-4 sm:grid-cols-2">
        <div className="space-y-1">
          <CheckboxField label={textRuleMessages.requireApprovalLabel} {...register('textRules.requireApproval')} />
          <p className="text-xs text-slate-600">{textRuleMessages.requireApprovalHint}</p>
        </div>
        <TextField
          label={textRuleMessages.autoApproveAfterLabel}
          hint={textRuleMessages.autoApproveAfterHint}
          inputMode="numeric"
          error={errors?.autoApproveAfter?.message}
          {...register('textRules.autoApproveAfter')}
        />
      </div>
    </fieldset>
  );
}
