import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router';
import { toast } from '../app/toast.ts';
import { accountDeletionMessages as m, deleteAccountSchema } from '../../shared/auth/account-deletion.ts';
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

interface DeleteAccountForm {
  password: string;
  confirm: boolean;
}

/** API settings' danger zone: the password again and a tick, then the account and its data are gone and the owner is signed out. */
export function DeleteAccountCard() {
  const { setUser } = useAuth();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string | null>(null);
  const form = useForm<DeleteAccountForm>({
    resolver: zodResolver(deleteAccountSchema) as never,
    defaultValues: { password: '', confirm: false },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
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
        <form noValidate onSubmit={(event) => void onSubmit(event)} className="space-y-4">
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
