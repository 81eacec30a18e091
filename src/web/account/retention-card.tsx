import { useEffect, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from '../app/toast.ts';
import { deferredResolver } from '../app/deferred-resolver.ts';
import { retentionMessages } from '../../shared/retention/retention-messages.ts';
import type { RetentionSettings } from '../../shared/retention/retention-schemas.ts';
import { requestMessages } from '../../shared/messages.ts';
import { errorMessage, showServerFieldErrors } from '../auth/server-field-errors.ts';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { TextField } from '../ui/field.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { useRetention, useSaveRetention } from './use-retention.ts';
import { useLocation } from 'react-router';
import { retentionSectionId } from './retention-section.ts';

/** The shared retention schema checks the form, fetched once the form is first focused: the settings page loads without zod. */
const retentionChecks = deferredResolver<RetentionSettings>(async () => (await import('./retention-checks.ts')).retentionResolver);

/** API settings: how many days events, payloads and texts are kept (docs/decisions/0029). */
export function RetentionCard() {
  const retention = useRetention();
  const save = useSaveRetention();
  const form = useForm<RetentionSettings>({ resolver: retentionChecks.resolver, defaultValues: { retentionDays: 30 } });
  const { errors, isSubmitting } = form.formState;
  const { reset } = form;
  const location = useLocation();
  useEffect(() => {
    if (retention.data) reset(retention.data);
  }, [retention.data, reset]);
  // The event log's link lands here; the router does not scroll to a fragment by itself.
  const loaded = Boolean(retention.data);
  useEffect(() => {
    if (loaded && location.hash === `#${retentionSectionId}`) document.getElementById(retentionSectionId)?.scrollIntoView({ block: 'start' });
  }, [loaded, location.hash]);

  const submit = form.handleSubmit(async (values) => {
    try {
      await save.mutateAsync(values);
      toast.success(retentionMessages.saved);
    } catch (error) {
      if (showServerFieldErrors(error, form.setError, ['retentionDays'])) return;
      toast.error(errorMessage(error, retentionMessages.daysInvalid));
    }
  });
  // Only the checks can fail here (their chunk could not be fetched); the rest is caught above.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    submit(event).catch((error: unknown) => toast.error(errorMessage(error, requestMessages.unreachable)));
  };

  return (
    <section id={retentionSectionId} aria-labelledby="retention-title" className="scroll-mt-20">
      <Card className="space-y-4">
        <h2 id="retention-title" className="text-lg font-semibold text-slate-900">
          {retentionMessages.sectionTitle}
        </h2>
        <p className="text-sm text-slate-700">{retentionMessages.sectionHelp}</p>
        {retention.isPending ? (
          <Spinner label="Loading the retention period" />
        ) : (
          <form noValidate onSubmit={onSubmit} onFocus={retentionChecks.preload} className="flex flex-wrap items-end gap-3">
            <div className="w-48">
              <TextField
                label={retentionMessages.daysLabel}
                type="number"
                inputMode="numeric"
                min={1}
                max={365}
                step={1}
                error={errors.retentionDays?.message}
                {...form.register('retentionDays', { valueAsNumber: true })}
              />
            </div>
            <Button type="submit" variant="secondary" busy={isSubmitting}>
              Save
            </Button>
          </form>
        )}
      </Card>
    </section>
  );
}
