import { forwardRef, useId, type InputHTMLAttributes } from 'react';

/** A checkbox with its label beside it; clicking the label toggles it. */
export const CheckboxField = forwardRef<HTMLInputElement, Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { label: string }>(
  function CheckboxField({ label, id, className = '', ...props }, ref) {
    const generatedId = useId();
    const inputId = id ?? generatedId;
    return (
      <div className={`flex items-center gap-2 ${className}`}>
        <input
          ref={ref}
          id={inputId}
          type="checkbox"
          {...props}
          className="h-4 w-4 rounded border-slate-300 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed"
        />
        <label htmlFor={inputId} className="text-sm text-slate-700">
          {label}
        </label>
      </div>
    );
  },
);
