import { useLocation } from 'react-router';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from '../../app/toast.ts';
import { MailCheck } from 'lucide-react';
import type { z } from 'zod';
import { resendVerificationSchema } from '../../../shared/auth/auth-schemas.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { requestMessages } from '../../../shared/messages.ts';
import { callEndpoint } from '../../app/api-client.ts';
import { accountPageMessages } from '../auth-messages.ts';
import { errorMessage, showServerFieldErrors } from '../server-field-errors.ts';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { TextField } from '../../ui/field.tsx';
import { Button } from '../../ui/button.tsx';
import { TextLink } from '../../ui/text-link.tsx';
import { endpoints } from '../../../shared/api/endpoints.ts';

/** What the register page hands over, so the resend form needs no retyping. */
export interface VerificationSentState {
  email: string;
}

function emailFromState(state: unknown): string {
  const email = (state as Partial<VerificationSentState> | null)?.email;
  return typeof email === 'string' ? email : '';
}

/**
 * docs/product/specification.md §2 "Verification sent": a link went out and expires in 24
 * hours; a new one can be requested.
 */
export function VerificationSentPage() {
  const location = useLocation();
  const form = useForm<z.input<typeof resendVerificationSchema>, unknown, z.output<typeof resendVerificationSchema>>({
    resolver: zodResolver(resendVerificationSchema),
    defaultValues: { email: emailFromState(location.state) },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const { message } = await callEndpoint(endpoints.account.resendVerification, { body: values });
      toast.success(message);
    } catch (error) {
      if (showServerFieldErrors(error, form.setError, ['email'])) return;
      toast.error(errorMessage(error, requestMessages.internal));
    }
  });

  return (
    <AuthShell title="Verify Your Email">
      <div className="space-y-6">
        <div className="flex flex-col items-center gap-3 text-center">
          <MailCheck aria-hidden="true" className="h-10 w-10 text-indigo-600" />
          <p className="text-slate-700">{accountPageMessages.verificationSent}</p>
        </div>
        <form onSubmit={onSubmit} noValidate className="space-y-3 border-t border-slate-200 pt-6" aria-labelledby="resend-heading">
          <h2 id="resend-heading" className="text-sm font-semibold text-slate-800">
            Didn&apos;t get the email?
          </h2>
          <TextField label="Email" type="email" autoComplete="email" error={errors.email?.message} {...form.register('email')} />
          <Button type="submit" variant="secondary" className="w-full" busy={isSubmitting}>
            Resend verification email
          </Button>
        </form>
        <p className="text-center text-sm">
          <TextLink to={pageRoutes.login}>Back to login</TextLink>
        </p>
      </div>
    </AuthShell>
  );
}
