import { useLayoutEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router';
import { toast } from '../../app/toast.ts';
import type { z } from 'zod';
import { resetPasswordSchema, type ResetPasswordInput } from '../../../shared/auth/auth-schemas.ts';
import { authMessages } from '../../../shared/messages.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { callEndpoint } from '../../app/api-client.ts';
import { useAuth } from '../auth-context.tsx';
import { accountPageMessages } from '../auth-messages.ts';
import { clearUrlFragment, readAuthLinkFragment } from '../url-fragment.ts';
import { errorMessage, showServerFieldErrors } from '../server-field-errors.ts';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { TextField } from '../../ui/field.tsx';
import { Button } from '../../ui/button.tsx';
import { Alert } from '../../ui/alert.tsx';
import { ButtonLink, TextLink } from '../../ui/text-link.tsx';
import { endpoints } from '../../../shared/api/endpoints.ts';

/**
 * docs/product/specification.md §2 "Reset Password": the landing page of the reset mail;
 * a new password signs the owner in.
 */
export function ResetPasswordPage() {
  // Read once: the fragment is cleared from the address bar right after.
  const [token] = useState(() => readAuthLinkFragment().accessToken);
  // Before the page is painted: the token leaves the address bar (and its history entry) at once.
  useLayoutEffect(clearUrlFragment, []);

  return <AuthShell title="Reset Password">{token ? <ResetPasswordForm token={token} /> : <MissingToken />}</AuthShell>;
}

function MissingToken() {
  return (
    <div className="space-y-6">
      <Alert tone="error">{accountPageMessages.missingResetToken}</Alert>
      <ButtonLink to={pageRoutes.forgotPassword} className="w-full">
        Request a new link
      </ButtonLink>
      <p className="text-center text-sm">
        <TextLink to={pageRoutes.login}>Back to login</TextLink>
      </p>
    </div>
  );
}

function ResetPasswordForm({ token }: { token: string }) {
  const { setUser } = useAuth();
  const navigate = useNavigate();
  const form = useForm<ResetPasswordInput, unknown, z.output<typeof resetPasswordSchema>>({
    resolver: zodResolver(resetPasswordSchema),
    // The token is part of the validated input but has no field of its own.
    defaultValues: { token, password: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = form.formState;
  const [linkProblem, setLinkProblem] = useState<string | null>(null);

  const onSubmit = form.handleSubmit(async (values) => {
    setLinkProblem(null);
    try {
      const { user } = await callEndpoint(endpoints.account.resetPassword, { body: values });
      setUser(user);
      toast.success(authMessages.passwordUpdated);
      navigate(pageRoutes.dashboard);
    } catch (error) {
      if (showServerFieldErrors(error, form.setError, ['password', 'confirmPassword'])) return;
      const message = errorMessage(error, authMessages.passwordUpdateFallback);
      toast.error(message);
      if (message === authMessages.invalidResetLink) setLinkProblem(message);
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <p className="text-sm text-slate-700">Choose a new password for your account.</p>
      {linkProblem ? (
        <Alert tone="error">
          {linkProblem} <TextLink to={pageRoutes.forgotPassword}>Request a new link</TextLink>
        </Alert>
      ) : null}
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        hint="At least 8 characters, with a number and a special character."
        error={errors.password?.message}
        {...form.register('password')}
      />
      <TextField
        label="Confirm new password"
        type="password"
        autoComplete="new-password"
        error={errors.confirmPassword?.message}
        {...form.register('confirmPassword')}
      />
      <Button type="submit" className="w-full" busy={isSubmitting}>
        Update Password
      </Button>
    </form>
  );
}
