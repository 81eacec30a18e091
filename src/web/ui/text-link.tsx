import type { ComponentProps } from 'react';
import { Link } from 'react-router';
import { buttonClasses, type ButtonVariant } from './button.tsx';

/** An in-app link in running text. */
export function TextLink({ className = '', ...props }: ComponentProps<typeof Link>) {
  return (
    <Link
      {...props}
      className={`font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:rounded-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${className}`}
    />
  );
}

/** A link that looks like a button: it navigates, so it stays a link for assistive technology. */
export function ButtonLink({ variant = 'primary', className = '', ...props }: ComponentProps<typeof Link> & { variant?: ButtonVariant }) {
  return <Link {...props} className={`${buttonClasses(variant)} ${className}`} />;
}
