import { useId, useRef } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { Trash2 } from 'lucide-react';
import { TextAreaField, TextField } from '../ui/field.tsx';
import { Button } from '../ui/button.tsx';
import { insertAtCursor, placeholdersOfFlow } from '../../shared/flows/prompt-placeholders.ts';
import { textRuleMessages } from '../../shared/flows/flow-messages.ts';
import { MAX_TEXT_LENGTH } from '../../shared/flows/text-rules.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { FlowFormValues } from './flow-form.ts';
import { KlaviyoTag } from './klaviyo-tag.tsx';

/**
 * Wanted in textRuleMessages: the name of a button that puts a placeholder into an
 * assistant's fallback text. It starts unlike the prompt template's buttons ("Insert
 * {token} … into the prompt template"), so each set keeps names of its own.
 */
const insertIntoFallback = (token: string, label: string, number: number) => `Insert into the fallback text of assistant ${number}: ${token} (${label})`;

/** The placeholders this flow's events fill, as buttons that put one into a text at its cursor. */
function PlaceholderButtons({ flowType, nameOf, onInsert }: { flowType: FlowType; nameOf: (token: string, label: string) => string; onInsert: (token: string) => void }) {
  const labelId = useId();
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-labelledby={labelId}>
      <span id={labelId} className="text-xs text-slate-600">
        Insert placeholder:
      </span>
      {/* Only what this flow's events can fill: anything else would reach the AI empty. */}
      {placeholdersOfFlow(flowType).map((placeholder) => (
        <button
          key={placeholder.token}
          type="button"
          title={placeholder.example ? `${placeholder.label}, for example: ${placeholder.example}` : placeholder.label}
          aria-label={nameOf(placeholder.token, placeholder.label)}
          onClick={() => onInsert(placeholder.token)}
          className="rounded border border-slate-300 bg-slate-50 px-2 py-0.5 font-mono text-xs text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          {placeholder.token}
        </button>
      ))}
    </div>
  );
}

/** One AI assistant of the configuration form: what it writes, where to, and how. */
export function AssistantFields({ flowType, index, canRemove, onRemove }: { flowType: FlowType; index: number; canRemove: boolean; onRemove: () => void }) {
  const { register, getValues, setValue, formState, control } = useFormContext<FlowFormValues>();
  const property = useWatch({ control, name: `assistants.${index}.klaviyo_property` }) ?? '';
  const errors = formState.errors.assistants?.[index];
  const templatePath = `assistants.${index}.prompt_template` as const;
  const fallbackPath = `assistants.${index}.fallback_text` as const;
  // Registered in display order, which is the order a failed submit looks for the field to focus.
  const nameField = register(`assistants.${index}.name`);
  const propertyField = register(`assistants.${index}.klaviyo_property`);
  const { ref: registerTemplateRef, ...templateField } = register(templatePath);
  const modelField = register(`assistants.${index}.model`);
  const instructionsField = register(`assistants.${index}.instructions`);
  const { ref: registerFallbackRef, ...fallbackField } = register(fallbackPath);
  const maxLengthField = register(`assistants.${index}.max_length`);
  const templateElement = useRef<HTMLTextAreaElement | null>(null);
  const fallbackElement = useRef<HTMLTextAreaElement | null>(null);
  const headingId = useId();
  const number = index + 1;

  const insertPlaceholder = (path: typeof templatePath | typeof fallbackPath, element: HTMLTextAreaElement | null, token: string) => {
    const current = getValues(path) ?? '';
    const { text, cursor } = insertAtCursor(current, element?.selectionStart ?? current.length, element?.selectionEnd ?? current.length, token);
    setValue(path, text, { shouldDirty: true, shouldValidate: formState.isSubmitted });
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(cursor, cursor);
    });
  };

  return (
    <section className="space-y-4 rounded-md border border-slate-200 p-4" data-assistant={number} aria-labelledby={headingId}>
      <div className="flex items-center justify-between">
        <h3 id={headingId} className="text-sm font-semibold text-slate-800">
          Assistant {number}
        </h3>
        <Button variant="secondary" onClick={onRemove} disabled={!canRemove} aria-label={`Remove assistant ${number}`} title={canRemove ? undefined : 'A flow needs at least 1 AI assistant'}>
          <Trash2 aria-hidden="true" className="h-4 w-4" />
          Remove
        </Button>
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Name" error={errors?.name?.message} {...nameField} />
        <div className="space-y-2">
          <TextField
            label="Klaviyo property"
            error={errors?.klaviyo_property?.message}
            hint="The shopper's profile property this assistant's text is written to"
            {...propertyField}
          />
          <KlaviyoTag property={property} />
        </div>
      </div>
      <div className="space-y-2">
        <TextAreaField
          label="Prompt template"
          error={errors?.prompt_template?.message}
          ref={(element) => {
            registerTemplateRef(element);
            templateElement.current = element;
          }}
          {...templateField}
        />
        <PlaceholderButtons
          flowType={flowType}
          nameOf={(token, label) => `Insert ${token} (${label}) into the prompt template of assistant ${number}`}
          onInsert={(token) => insertPlaceholder(templatePath, templateElement.current, token)}
        />
      </div>
      <TextField label="Model (optional)" error={errors?.model?.message} hint="Leave empty to use your default model" placeholder="gpt-5-mini" {...modelField} />
      <TextAreaField label="Instructions (optional)" error={errors?.instructions?.message} hint="Tone, length, brand voice" rows={2} {...instructionsField} />
      <div className="space-y-2">
        <TextAreaField
          label={textRuleMessages.fallbackLabel}
          error={errors?.fallback_text?.message}
          hint={textRuleMessages.fallbackHint}
          rows={2}
          ref={(element) => {
            registerFallbackRef(element);
            fallbackElement.current = element;
          }}
          {...fallbackField}
        />
        <PlaceholderButtons
          flowType={flowType}
          nameOf={(token, label) => insertIntoFallback(token, label, number)}
          onInsert={(token) => insertPlaceholder(fallbackPath, fallbackElement.current, token)}
        />
      </div>
      <TextField
        label={textRuleMessages.maxLengthLabel}
        type="number"
        inputMode="numeric"
        min={1}
        max={MAX_TEXT_LENGTH}
        step={1}
        className="max-w-40"
        hint={textRuleMessages.maxLengthHint(MAX_TEXT_LENGTH)}
        error={errors?.max_length?.message}
        {...maxLengthField}
      />
    </section>
  );
}
