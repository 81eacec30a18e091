import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from '../../app/toast.ts';
import { MailCheck } from 'lucide-react';
import type { z } from 'zod';
import { forgotPasswordSchema, type ForgotPasswordInput } from '../../../shared/auth/auth-schemas.ts';
import { authMessages } from '../../../shared/messages.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { callEndpoint } from '../../app/api-client.ts';
import { accountPageMessages } from '../auth-messages.ts';
import { errorMessage, showServerFieldErrors } from '../server-field-errors.ts';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { TextField } from '../../ui/field.tsx';
import { Button } from '../../ui/button.tsx';
import { TextLink } from '../../ui/text-link.tsx';
import { endpoints } from '../../../shared/api/endpoints.ts';

/**
 * docs/product/specification.md §2 "Forgot password": request the mail, then a "Check
 * your email" state.
 */
export function ForgotPasswordPage() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useForm<ForgotPasswordInput, unknown, z.output<typeof forgotPasswordSchema>>({
    resolver: zodResolver(forgotPasswordSchema),
    defaultValues: { email: '' },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await callEndpoint(endpoints.account.forgotPassword, { body: values });
      toast.success(authMessages.resetSent);
      setSentTo(values.email);
    } catch (error) {
      if (showServerFieldErrors(error, form.setError, ['email'])) return;
      toast.error(errorMessage(error, authMessages.passwordResetFallback));
    }
  });

  if (sentTo !== null) {
    return (
      <AuthShell title="Check your email">
        <div className="space-y-6 text-center">
          <MailCheck aria-hidden="true" className="mx-auto h-10 w-10 text-indigo-600" />
          <p className="text-slate-700">{accountPageMessages.resetLinkSent(sentTo)}</p>
          <p className="text-sm">
            <TextLink to={pageRoutes.login}>Back to login</TextLink>
          </p>
        </div>
      </AuthShell>
    );
  }

  return (
    <AuthShell title="Forgot Password" description="Enter your email and we'll send you a link to reset your password.">
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <TextField label="Email" type="email" autoComplete="email" error={errors.email?.message} {...form.register('email')} />
        <Button type="submit" className="w-full" busy={isSubmitting}>
          Send Reset Link
        </Button>
      </form>
      <p className="mt-6 text-center text-sm">
        <TextLink to={pageRoutes.login}>Back to login</TextLink>
      </p>
    </AuthShell>
  );
}
