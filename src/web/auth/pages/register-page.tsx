import type { FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { toast } from '../../app/toast.ts';
import type { SignUp, SignUpInput } from '../../../shared/auth/auth-schemas.ts';
import { authMessages } from '../../../shared/messages.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { callEndpoint } from '../../app/api-client.ts';
import { deferredResolver } from '../../app/deferred-resolver.ts';
import { SignedOutOnly } from '../signed-out-only.tsx';
import { errorMessage, showServerFieldErrors } from '../server-field-errors.ts';
import type { VerificationSentState } from './verification-sent-page.tsx';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { TextField } from '../../ui/field.tsx';
import { Button } from '../../ui/button.tsx';
import { TextLink } from '../../ui/text-link.tsx';
import { endpoints } from '../../../shared/api/endpoints.ts';

/**
 * The shared sign-up schema checks the form, fetched once the form is first focused, as
 * on the sign-in page: a visitor who only looks at the page does not download zod.
 */
const signUpChecks = deferredResolver<SignUpInput, SignUp>(async () => (await import('../sign-up-checks.ts')).signUpResolver);

/**
 * docs/product/specification.md §2 "Register". The server answers the same for a new and
 * a known address (no account enumeration), so every successful sign-up goes on to "check
 * your email".
 */
export function RegisterPage() {
  return (
    <SignedOutOnly>
      <RegisterForm />
    </SignedOutOnly>
  );
}

function RegisterForm() {
  const navigate = useNavigate();
  const form = useForm<SignUpInput, unknown, SignUp>({
    resolver: signUpChecks.resolver,
    defaultValues: { fullName: '', email: '', password: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    try {
      await callEndpoint(endpoints.account.signUp, { body: values });
      toast.success(authMessages.registrationVerify);
      navigate(pageRoutes.verificationSent, { state: { email: values.email } satisfies VerificationSentState });
    } catch (error) {
      if (showServerFieldErrors(error, form.setError, ['fullName', 'email', 'password', 'confirmPassword'])) return;
      toast.error(errorMessage(error, authMessages.signUpFallback));
    }
  });
  // Only the checks can fail here (their chunk could not be fetched); the rest is caught above.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    submit(event).catch((error: unknown) => toast.error(errorMessage(error, authMessages.signUpFallback)));
  };

  return (
    <AuthShell title="Create an Account" description="Start automating your marketing flows.">
      <form onSubmit={onSubmit} onFocus={signUpChecks.preload} noValidate className="space-y-5">
        <TextField label="Full name" autoComplete="name" error={errors.fullName?.message} {...form.register('fullName')} />
        <TextField label="Email" type="email" autoComplete="email" error={errors.email?.message} {...form.register('email')} />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          hint="At least 8 characters, with a number and a special character."
          error={errors.password?.message}
          {...form.register('password')}
        />
        <TextField
          label="Confirm password"
          type="password"
          autoComplete="new-password"
          error={errors.confirmPassword?.message}
          {...form.register('confirmPassword')}
        />
        <Button type="submit" className="w-full" busy={isSubmitting}>
          Create Account
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-700">
        Already have an account? <TextLink to={pageRoutes.login}>Sign in</TextLink>
      </p>
    </AuthShell>
  );
}
