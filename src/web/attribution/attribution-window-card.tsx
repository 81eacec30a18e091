import { useState, type FormEvent } from 'react';
import { toast } from '../app/toast.ts';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import { deferred } from '../app/deferred-resolver.ts';
import { errorMessage } from '../auth/server-field-errors.ts';
import { attributionMessages as m } from '../../shared/attribution/attribution-messages.ts';
import { requestMessages } from '../../shared/messages.ts';
import { useAttributionSettings, useSaveAttributionSettings } from './use-revenue.ts';

/** The shared settings schema checks the window, fetched once the form is first focused: the settings page loads without zod. */
const windowChecks = deferred(async () => (await import('../../shared/attribution/attribution-schemas.ts')).attributionSettingsSchema);

/**
 * The owner's attribution window, on the settings page: one window for all flows, because
 * an order is credited to the latest delivery whichever flow made it
 * (docs/decisions/0030-revenue-attribution.md).
 */
export function AttributionWindowCard() {
  const settings = useAttributionSettings();
  const save = useSaveAttributionSettings();
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const value = draft ?? (settings.data ? String(settings.data.windowDays) : '');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const attributionSettingsSchema = await windowChecks.get().catch((failure: unknown) => {
      setError(errorMessage(failure, requestMessages.unreachable));
      return null;
    });
    if (!attributionSettingsSchema) return;
    const parsed = attributionSettingsSchema.safeParse({ windowDays: /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN });
    if (!parsed.success) {
      setError(m.windowInvalid);
      return;
    }
    setError(undefined);
    save.mutate(parsed.data, {
      onSuccess: () => {
        setDraft(null);
        toast.success(m.windowSaved);
      },
      onError: (failure) => setError(failure.message),
    });
  }

  return (
    <Card>
      <form onSubmit={(event) => void submit(event)} onFocus={windowChecks.preload} className="space-y-3" noValidate>
        <h2 className="text-lg font-semibold text-slate-900">{m.windowHeading}</h2>
        <TextField
          label={m.windowLabel}
          inputMode="numeric"
          value={value}
          disabled={settings.isPending}
          onChange={(event) => setDraft(event.target.value)}
          error={error}
          hint={m.windowHint}
          className="max-w-[8rem]"
        />
        <Button type="submit" busy={save.isPending}>
          {m.save}
        </Button>
      </form>
    </Card>
  );
}
