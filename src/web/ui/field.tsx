import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type Ref, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

const controlClasses = 'block w-full rounded-md border px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500 disabled:bg-slate-100';
/** A select is as wide as its longest option (`max-w-full` keeps a long one in its column). */
const selectClasses = 'block rounded-md border bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500';

/**
 * A label, a hint and an error around one control. The label is tied to the control and
 * the error is announced (aria-describedby, aria-invalid), so every form is usable with a
 * keyboard and a screen reader.
 */
function LabelledControl({
  inputId,
  label,
  hint,
  error,
  control,
}: {
  inputId: string;
  label: string;
  hint: ReactNode;
  error: string | undefined;
  control: (described: { 'aria-invalid': true | undefined; 'aria-describedby': string | undefined }) => ReactNode;
}) {
  const errorId = `${inputId}-error`;
  const hintId = `${inputId}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={inputId} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {control({ 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint ? (
        <p id={hintId} className="text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled input with its hint and its error underneath. */
export const TextField = forwardRef<
  HTMLInputElement,
  InputHTMLAttributes<HTMLInputElement> & { label: string; error?: string | undefined; hint?: ReactNode }
>(function TextField({ label, error, hint, id, className = '', ...props }, ref) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  return (
    <LabelledControl
      inputId={inputId}
      label={label}
      hint={hint}
      error={error}
      control={(described) => <input ref={ref} id={inputId} {...described} {...props} className={`${controlClasses} ${error ? 'border-red-500' : 'border-slate-300'} ${className}`} />}
    />
  );
});

/** A labelled textarea (three rows unless told), like TextField. */
export function TextAreaField({
  label,
  error,
  hint,
  id,
  className = '',
  ref,
  rows = 3,
  ...props
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { label: string; error?: string | undefined; hint?: ReactNode; ref?: Ref<HTMLTextAreaElement> | undefined }) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  return (
    <LabelledControl
      inputId={inputId}
      label={label}
      hint={hint}
      error={error}
      control={(described) => (
        <textarea ref={ref} id={inputId} rows={rows} {...described} {...props} className={`${controlClasses} ${error ? 'border-red-500' : 'border-slate-300'} ${className}`} />
      )}
    />
  );
}

/** A labelled select, like TextField; its options are the children. */
export function SelectField({
  label,
  error,
  hint,
  id,
  className = '',
  ref,
  children,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & { label: string; error?: string | undefined; hint?: ReactNode; ref?: Ref<HTMLSelectElement> | undefined }) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  return (
    <LabelledControl
      inputId={inputId}
      label={label}
      hint={hint}
      error={error}
      control={(described) => (
        <select ref={ref} id={inputId} {...described} {...props} className={`${selectClasses} ${error ? 'border-red-500' : 'border-slate-300'} ${className}`}>
          {children}
        </select>
      )}
    />
  );
}
