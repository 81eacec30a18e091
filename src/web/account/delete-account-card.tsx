import { useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { toast } from '../app/toast.ts';
import { accountDeletionMessages as m } from '../../shared/auth/account-deletion.ts';
import { requestMessages } from '../../shared/messages.ts';
import { deferredResolver } from '../app/deferred-resolver.ts';
import type { DeleteAccountForm } from './delete-account-checks.ts';
import { pageRoutes } from '../../shared/routes.ts';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import { useAuth } from '../auth/auth-context.tsx';
import { errorMessage, showServerFieldErrors } from '../auth/server-field-errors.ts';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { TextField } from '../ui/field.tsx';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The shared deletion schema checks the form, fetched once the form is first focused: the settings page loads without zod. */
const deleteAccountChecks = deferredResolver<DeleteAccountForm>(async () => (await import('./delete-account-checks.ts')).deleteAccountResolver);

/** API settings' danger zone: the password again and a tick, then the account and its data are gone and the owner is signed out. */
export function DeleteAccountCard() {
  const { setUser } = useAuth();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string | null>(null);
  const form = useForm<DeleteAccountForm>({
    resolver: deleteAccountChecks.resolver,
    defaultValues: { password: '', confirm: false },
  });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    setProblem(null);
    try {
      // The form's resolver has already refused an unticked box; this says so to the types.
      if (values.confirm !== true) return;
      await callEndpoint(endpoints.account.delete, { body: { password: values.password, confirm: values.confirm } });
      toast.success(m.deleted);
      setUser(null);
      navigate(pageRoutes.login, { replace: true });
    } catch (error) {
      if (showServerFieldErrors(error, form.setError, ['password', 'confirm'])) return;
      setProblem(error instanceof ApiRequestError && error.message ? error.message : errorMessage(error, m.wrongPassword));
      form.resetField('password');
    }
  });
  // Only the checks can fail here (their chunk could not be fetched); the rest is caught above.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    submit(event).catch((error: unknown) => setProblem(errorMessage(error, requestMessages.unreachable)));
  };

  return (
    <section aria-labelledby="delete-account-title">
      <Card className="space-y-4 border-red-200">
        <h2 id="delete-account-title" className="text-lg font-semibold text-red-800">
          {m.sectionTitle}
        </h2>
        <p className="text-sm text-slate-700">{m.sectionHelp}</p>
        {problem ? (
          <Alert tone="error" title={problem} />
        ) : null}
        <form noValidate onSubmit={onSubmit} onFocus={deleteAccountChecks.preload} className="space-y-4">
          <div className="max-w-sm">
            <TextField label={m.passwordLabel} type="password" autoComplete="current-password" error={errors.password?.message} {...form.register('password')} />
          </div>
          <div className="space-y-1">
            <CheckboxField label={m.confirmLabel} {...form.register('confirm')} />
            {errors.confirm ? <p className="text-sm text-red-700">{errors.confirm.message}</p> : null}
          </div>
          <Button type="submit" variant="danger" busy={isSubmitting}>
            {m.button}
          </Button>
        </form>
      </Card>
    </section>
  );
}
