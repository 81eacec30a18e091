import { useId, useRef, type TextareaHTMLAttributes } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { Trash2 } from 'lucide-react';
import { TextField } from '../ui/field.tsx';
import { Button } from '../ui/button.tsx';
import { insertAtCursor, placeholdersOfFlow } from '../../shared/flows/prompt-placeholders.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { FlowFormValues } from './flow-form.ts';
import { KlaviyoTag } from './klaviyo-tag.tsx';

/** A labelled textarea with its hint and error announced, like TextField. */
function TextAreaField({
  label,
  error,
  hint,
  textareaRef,
  ...props
}: TextareaHTMLAttributes<HTMLTextAreaElement> & {
  label: string;
  error?: string | undefined;
  hint?: string;
  textareaRef?: (element: HTMLTextAreaElement | null) => void;
}) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <textarea
        id={id}
        ref={textareaRef}
        rows={3}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...props}
        className={`block w-full rounded-md border px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500 ${error ? 'border-red-500' : 'border-slate-300'}`}
      />
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** One AI assistant of the configuration form: what it writes, where to, and how. */
export function AssistantFields({ flowType, index, canRemove, onRemove }: { flowType: FlowType; index: number; canRemove: boolean; onRemove: () => void }) {
  const { register, getValues, setValue, formState, control } = useFormContext<FlowFormValues>();
  const property = useWatch({ control, name: `assistants.${index}.klaviyo_property` }) ?? '';
  const errors = formState.errors.assistants?.[index];
  const templatePath = `assistants.${index}.prompt_template` as const;
  // Registered in display order, which is the order a failed submit looks for the field to focus.
  const nameField = register(`assistants.${index}.name`);
  const propertyField = register(`assistants.${index}.klaviyo_property`);
  const { ref: registerTemplateRef, ...templateField } = register(templatePath);
  const templateElement = useRef<HTMLTextAreaElement | null>(null);
  const placeholdersLabel = useId();
  const headingId = useId();
  const number = index + 1;

  const insertPlaceholder = (token: string) => {
    const element = templateElement.current;
    const current = getValues(templatePath) ?? '';
    const { text, cursor } = insertAtCursor(current, element?.selectionStart ?? current.length, element?.selectionEnd ?? current.length, token);
    setValue(templatePath, text, { shouldDirty: true, shouldValidate: formState.isSubmitted });
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
          textareaRef={(element) => {
            registerTemplateRef(element);
            templateElement.current = element;
          }}
          {...templateField}
        />
        <div className="flex flex-wrap items-center gap-2" role="group" aria-labelledby={placeholdersLabel}>
          <span id={placeholdersLabel} className="text-xs text-slate-600">
            Insert placeholder:
          </span>
          {/* Only what this flow's events can fill: anything else would reach the AI empty. */}
          {placeholdersOfFlow(flowType).map((placeholder) => (
            <button
              key={placeholder.token}
              type="button"
              title={placeholder.label}
              aria-label={`Insert ${placeholder.token} (${placeholder.label}) into the prompt template of assistant ${number}`}
              onClick={() => insertPlaceholder(placeholder.token)}
              className="rounded border border-slate-300 bg-slate-50 px-2 py-0.5 font-mono text-xs text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              {placeholder.token}
            </button>
          ))}
        </div>
      </div>
      <TextField
        label="Model (optional)"
        error={errors?.model?.message}
        hint="Leave empty to use your default model"
        placeholder="gpt-5-mini"
        {...register(`assistants.${index}.model`)}
      />
      <TextAreaField
        label="Instructions (optional)"
        error={errors?.instructions?.message}
        hint="Tone, length, brand voice"
        rows={2}
        {...register(`assistants.${index}.instructions`)}
      />
    </section>
  );
}
