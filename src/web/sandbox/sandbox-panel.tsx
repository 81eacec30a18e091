import { useState, type FormEvent } from 'react';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { TextField } from '../ui/field.tsx';
import { ButtonLink, TextLink } from '../ui/text-link.tsx';
import { pageRoutes } from '../../shared/routes.ts';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { sandboxProfilesPath } from '../../shared/sandbox/sandbox-events.ts';
import { useSetupStatus } from '../credentials/use-credentials.ts';
import { SandboxBadge } from './sandbox-badge.tsx';
import { TrySandboxCard } from './try-sandbox-card.tsx';
import { useLeaveSandbox, useSandboxOpenaiKey, useSandboxStatus, useSendSampleActivity } from './use-sandbox.ts';

/**
 * The sandbox on the dashboard: while it is on, sample shopper activity, the sandbox
 * Klaviyo's profiles, the writer and the one step to the real services; before, the
 * offer to try it (for an owner who has not connected their accounts).
 */
export function SandboxPanel() {
  const status = useSandboxStatus();
  const setup = useSetupStatus();
  if (!status.data) return null;
  if (!status.data.active) {
    if (setup.data !== false) return null;
    return <TrySandboxCard />;
  }
  return <ActiveSandbox writer={status.data.writer} ownKey={status.data.sandboxOpenaiKeySet} canUseRealServices={status.data.canUseRealServices} />;
}

function ActiveSandbox({ writer, ownKey, canUseRealServices }: { writer: 'sample' | 'openai'; ownKey: boolean; canUseRealServices: boolean }) {
  const send = useSendSampleActivity();
  const leave = useLeaveSandbox();
  const openaiKey = useSandboxOpenaiKey();
  const [key, setKey] = useState('');
  const saveKey = (event: FormEvent) => {
    event.preventDefault();
    if (key.trim()) openaiKey.mutate(key.trim(), { onSuccess: () => setKey('') });
  };
  return (
    <Card className="space-y-4 border-amber-300">
      <section aria-labelledby="sandbox-heading" className="space-y-4">
        <div className="flex flex-wrap items-center gap-3">
          <h2 id="sandbox-heading" className="text-xl font-semibold text-slate-900">
            {sandboxMessages.activeTitle}
          </h2>
          <SandboxBadge />
        </div>
        <p className="text-sm text-slate-700">{sandboxMessages.activeDescription}</p>
        <p className="text-sm text-slate-700">{writer === 'sample' ? sandboxMessages.writerSample : sandboxMessages.writerOpenai}</p>
        <div className="flex flex-wrap gap-3">
          <Button busy={send.isPending} onClick={() => send.mutate({})}>
            {sandboxMessages.sendActivity}
          </Button>
          <ButtonLink variant="secondary" to={sandboxProfilesPath()}>
            {sandboxMessages.viewProfiles}
          </ButtonLink>
        </div>
        {ownKey ? (
          <Button variant="secondary" busy={openaiKey.isPending} onClick={() => openaiKey.mutate(null)}>
            Use the sample writer again
          </Button>
        ) : (
          <form onSubmit={saveKey} className="flex flex-wrap items-end gap-3">
            <div className="min-w-64 flex-1">
              <TextField label={sandboxMessages.openaiKeyLabel} type="password" autoComplete="off" value={key} onChange={(event) => setKey(event.target.value)} placeholder="sk-…" />
            </div>
            <Button type="submit" variant="secondary" busy={openaiKey.isPending} disabled={!key.trim()}>
              Write with OpenAI
            </Button>
          </form>
        )}
        <div className="space-y-2 border-t border-slate-200 pt-4">
          {canUseRealServices ? (
            <>
              <p className="text-sm text-slate-700">{sandboxMessages.useRealServicesHint}</p>
              <Button variant="secondary" busy={leave.isPending} onClick={() => leave.mutate()}>
                {sandboxMessages.useRealServices}
              </Button>
            </>
          ) : (
            <p className="text-sm text-slate-700">
              {sandboxMessages.needCredentials} <TextLink to={pageRoutes.apiSettings}>Go to API Settings</TextLink>
            </p>
          )}
        </div>
      </section>
    </Card>
  );
}
