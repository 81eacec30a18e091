import { useId } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { TextField } from '../ui/field.tsx';
import { recommendationMessages as r } from '../../shared/flows/flow-messages.ts';
import { MAX_RECOMMENDATIONS, recommendationIntents, type RecommendationIntent } from '../../shared/flows/recommendation-options.ts';
import type { FlowFormValues } from './flow-form.ts';
import { KlaviyoTag } from './klaviyo-tag.tsx';

const intentLabels: Record<RecommendationIntent, string> = {
  related: r.intentRelated,
  complementary: r.intentComplementary,
};

/**
 * The Klaviyo template loop over the recommendations list. `lookup` reads any property
 * name, as the assistants' tags do (klaviyo-property-tags.ts); the fields inside are the
 * ones each product has (recommendedProductSchema).
 */
function recommendationLoopTag(property: string): string {
  return `{% for item in person|lookup:'${property.trim()}' %}<a href="{{ item.url }}">{{ item.title }}</a> {{ item.price }} {{ item.currency }}{% endfor %}`;
}

/**
 * "Recommendations from your shop" in the configuration form: which of Shopify's intents,
 * how many, and the optional profile property the list is written to, with the Klaviyo
 * loop that reads it.
 */
export function RecommendationFields() {
  const { register, formState, control } = useFormContext<FlowFormValues>();
  const property = useWatch({ control, name: 'recommendations.profileProperty' }) ?? '';
  const errors = formState.errors.recommendations;
  const ids = { hint: useId(), intent: useId(), intentHint: useId(), intentError: useId() };
  // Registered in display order, which is the order a failed submit looks for the field to focus.
  const intentField = register('recommendations.intent');
  const countField = register('recommendations.count');
  const propertyField = register('recommendations.profileProperty');

  return (
    <fieldset className="min-w-0 space-y-4" aria-describedby={ids.hint} data-testid="recommendation-fields">
      <legend className="text-sm font-semibold text-slate-800">{r.sectionTitle}</legend>
      <p id={ids.hint} className="text-xs text-slate-600">
        {r.sectionHint}
      </p>
      <div className="grid min-w-0 gap-4 sm:grid-cols-2">
        <div className="space-y-1">
          <label htmlFor={ids.intent} className="block text-sm font-medium text-slate-700">
            {r.intentLabel}
          </label>
          <select
            id={ids.intent}
            aria-invalid={errors?.intent ? true : undefined}
            aria-describedby={[ids.intentHint, errors?.intent ? ids.intentError : null].filter(Boolean).join(' ')}
            className={`block max-w-full rounded-md border bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500 ${errors?.intent ? 'border-red-500' : 'border-slate-300'}`}
            {...intentField}
          >
            {recommendationIntents.map((intent) => (
              <option key={intent} value={intent}>
                {intentLabels[intent]}
              </option>
            ))}
          </select>
          <p id={ids.intentHint} className="text-xs text-slate-600">
            {r.intentHint}
          </p>
          {errors?.intent ? (
            <p id={ids.intentError} className="text-sm text-red-700">
              {errors.intent.message}
            </p>
          ) : null}
        </div>
        <TextField
          label={r.countLabel}
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_RECOMMENDATIONS}
          step={1}
          className="max-w-40"
          hint={r.countHint(MAX_RECOMMENDATIONS)}
          error={errors?.count?.message}
          {...countField}
        />
      </div>
      <div className="space-y-2">
        <TextField label={r.propertyLabel} hint={r.propertyHint} error={errors?.profileProperty?.message} spellCheck={false} {...propertyField} />
        <KlaviyoTag property={property} tag={recommendationLoopTag(property)} label={r.loopTagLabel} />
      </div>
    </fieldset>
  );
}
