import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { toast } from '../../app/toast.ts';
import { useState, type FormEvent } from 'react';
import type { SignInInput } from '../../../shared/auth/auth-schemas.ts';
import { authMessages } from '../../../shared/messages.ts';
import { LOGIN_LOCKOUT_SECONDS } from '../../../shared/constants.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { ApiRequestError } from '../../app/api-client.ts';
import { deferredResolver } from '../../app/deferred-resolver.ts';
import { useAuth } from '../auth-context.tsx';
import { SignedOutOnly } from '../signed-out-only.tsx';
import { useLoginLockout } from '../use-login-lockout.ts';
import { errorMessage, showServerFieldErrors } from '../server-field-errors.ts';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { TextField } from '../../ui/field.tsx';
import { CheckboxField } from '../../ui/checkbox-field.tsx';
import { Button } from '../../ui/button.tsx';
import { Alert } from '../../ui/alert.tsx';
import { TextLink } from '../../ui/text-link.tsx';
import { apiErrorCodes } from '../../../shared/api/error-codes.ts';

/**
 * The shared sign-in schema checks the form, fetched once the form is first focused: a
 * visitor who only looks at the page does not download zod.
 */
const signInChecks = deferredResolver<SignInInput>(async () => (await import('../sign-in-checks.ts')).signInResolver);

/**
 * docs/product/specification.md §2 "Login": Welcome Back, Remember me, the lockout after
 * 5 failures, then /dashboard.
 */
export function LoginPage() {
  return (
    <SignedOutOnly>
      <LoginForm />
    </SignedOutOnly>
  );
}

function LoginForm() {
  const { signIn } = useAuth();
  const navigate = useNavigate();
  const lockout = useLoginLockout();
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm<SignInInput>({
    resolver: signInChecks.resolver,
    defaultValues: { email: '', password: '', rememberMe: false },
  });
  const { errors, isSubmitting } = form.formState;
  const disabled = lockout.locked;

  const submit = form.handleSubmit(async (values) => {
    setNotice(null);
    try {
      await signIn(values);
      toast.success(authMessages.loginSuccess);
      navigate(pageRoutes.dashboard);
    } catch (error) {
      if (error instanceof ApiRequestError && error.body.error === apiErrorCodes.locked_out) {
        lockout.lock(error.body.retryAfterSeconds ?? LOGIN_LOCKOUT_SECONDS);
        return;
      }
      if (error instanceof ApiRequestError && error.body.error === apiErrorCodes.email_not_verified) {
        setNotice(error.message);
        return;
      }
      if (showServerFieldErrors(error, form.setError, ['email', 'password'])) return;
      toast.error(errorMessage(error, authMessages.signInFallback));
    }
  });
  // Only the checks can fail here (their chunk could not be fetched); the rest is caught above.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    submit(event).catch((error: unknown) => toast.error(errorMessage(error, authMessages.signInFallback)));
  };

  return (
    <AuthShell title="Welcome Back" description="Sign in to manage your AI marketing flows.">
      <form onSubmit={onSubmit} onFocus={signInChecks.preload} noValidate className="space-y-5">
        {lockout.locked ? <Alert tone="error">{authMessages.lockout}</Alert> : null}
        {notice ? <Alert tone="info">{notice}</Alert> : null}
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          disabled={disabled}
          error={errors.email?.message}
          {...form.register('email')}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          disabled={disabled}
          error={errors.password?.message}
          {...form.register('password')}
        />
        <div className="flex items-center justify-between">
          <CheckboxField label="Remember me" disabled={disabled} {...form.register('rememberMe')} />
          <TextLink to={pageRoutes.forgotPassword} className="text-sm">
            Forgot password?
          </TextLink>
        </div>
        <Button type="submit" className="w-full" disabled={disabled} busy={isSubmitting}>
          Sign In
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-700">
        Don&apos;t have an account? <TextLink to={pageRoutes.register}>Sign up</TextLink>
      </p>
    </AuthShell>
  );
}
