import { useId, useState } from 'react';
import { toast } from '../app/toast.ts';
import { Copy, RefreshCw, ShieldCheck, ShieldOff } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { Alert } from '../ui/alert.tsx';
import { ApiRequestError } from '../app/api-client.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { flowSignatureMessages as m, signingExample } from '../../shared/flows/flow-signature-messages.ts';
import { useChangeFlowSignature, useFlowSignature, type FlowSignatureAction } from './use-flow-signature.ts';

async function copySecret(secret: string) {
  try {
    await navigator.clipboard.writeText(secret);
    toast.success(m.secretCopied);
  } catch {
    toast.error(m.secretCopyFailed);
  }
}

const doneToasts: Record<FlowSignatureAction, string> = { turnOn: m.turnedOn, generateNew: m.rotated, turnOff: m.turnedOff };

/**
 * "Require a signature" on the flow's status view (docs/product/product-rules.md §2, decision 0012).
 * The secret of the answer that created it is kept in this component's state only: it is
 * shown until the page is left or reloaded, and masked from then on. Generating a new
 * secret and turning the requirement off ask first, since senders can lose events.
 */
export function FlowSignatureSection({ flowType, webhookUrl }: { flowType: FlowType; webhookUrl: string }) {
  const signature = useFlowSignature(flowType);
  const change = useChangeFlowSignature(flowType);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<'generateNew' | 'turnOff' | null>(null);
  const ids = { heading: useId(), example: useId(), confirm: useId() };

  function run(action: FlowSignatureAction) {
    setConfirming(null);
    change.mutate(action, {
      onSuccess: (result) => {
        setSecret(result.secret);
        toast.success(doneToasts[action]);
      },
      onError: (error) => {
        toast.error(m.actionFailed(error instanceof ApiRequestError ? error.message : String(error)));
        // The flow may have changed elsewhere (another tab): show how it is now.
        void signature.refetch();
      },
    });
  }

  const state = signature.data;
  return (
    <section aria-labelledby={ids.heading} className="space-y-3" data-testid="flow-signature">
      <div className="flex items-center gap-3">
        <h2 id={ids.heading} className="text-lg font-semibold">
          {m.title}
        </h2>
        {state ? (
          <span
            data-testid="flow-signature-badge"
            className={`rounded-full px-2.5 py-0.5 text-xs font-semibold ${state.required ? 'bg-green-100 text-green-800' : 'bg-slate-200 text-slate-800'}`}
          >
            {state.required ? 'Required' : 'Not required'}
          </span>
        ) : null}
      </div>
      <p className="text-sm text-slate-700">{m.description}</p>

      {signature.isPending ? (
        <p role="status" className="text-sm text-slate-700">
          Loading the signature setting…
        </p>
      ) : !state ? (
        <div role="alert" className="space-y-2">
          <p className="text-sm text-red-700">{m.loadFailed(signature.error instanceof ApiRequestError ? signature.error.message : 'unknown error')}</p>
          <Button variant="secondary" onClick={() => void signature.refetch()}>
            Retry
          </Button>
        </div>
      ) : (
        <>
          <p className="text-sm text-slate-700" data-testid="flow-signature-state">
            {state.required ? m.stateOn : m.stateOff}
          </p>

          {state.required && secret ? (
            <div className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3">
              <Alert tone="warning">{m.secretShownOnce}</Alert>
              <p className="text-sm font-medium text-slate-800">
                {m.secretLabel}
              </p>
              <p className="break-all rounded-md bg-white px-3 py-2 font-mono text-sm text-slate-900" data-testid="flow-signing-secret">
                {secret}
              </p>
              <Button variant="secondary" onClick={() => void copySecret(secret)}>
                <Copy aria-hidden="true" className="h-4 w-4" />
                {m.copySecret}
              </Button>
            </div>
          ) : state.required ? (
            <p className="text-sm text-slate-700">
              {m.maskedLabel}:{' '}
              <span className="break-all font-mono text-slate-900" data-testid="flow-signing-secret-masked">
                {state.maskedSecret}
              </span>
            </p>
          ) : null}

          {state.previousSecretValidUntil ? (
            <p className="text-sm text-slate-700">{m.previousValidUntil(new Date(state.previousSecretValidUntil).toLocaleString())}</p>
          ) : null}

          {state.required ? (
            <div className="space-y-2">
              <h3 className="text-sm font-semibold text-slate-900">{m.howToSignTitle}</h3>
              <p className="text-sm text-slate-700">{m.howToSign}</p>
              <p id={ids.example} className="sr-only">
                {m.exampleLabel}
              </p>
              <pre
                role="region"
                aria-labelledby={ids.example}
                tabIndex={0}
                data-testid="flow-signature-example"
                className="max-h-60 overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-relaxed text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-600"
              >
                <code>{signingExample(webhookUrl)}</code>
              </pre>
            </div>
          ) : null}

          {confirming ? (
            <div role="group" aria-labelledby={ids.confirm} className="space-y-2 rounded-md border border-red-200 bg-red-50 p-3">
              <p id={ids.confirm} className="text-sm text-red-900">
                {confirming === 'generateNew' ? m.confirmGenerateNew : m.confirmTurnOff}
              </p>
              <div className="flex flex-wrap gap-2">
                <Button variant="danger" onClick={() => run(confirming)}>
                  {confirming === 'generateNew' ? m.confirmGenerateNewButton : m.confirmTurnOffButton}
                </Button>
                <Button variant="secondary" onClick={() => setConfirming(null)}>
                  {m.cancel}
                </Button>
              </div>
            </div>
          ) : state.required ? (
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" busy={change.isPending && change.variables === 'generateNew'} disabled={change.isPending} onClick={() => setConfirming('generateNew')}>
                <RefreshCw aria-hidden="true" className="h-4 w-4" />
                {m.generateNew}
              </Button>
              <Button variant="secondary" busy={change.isPending && change.variables === 'turnOff'} disabled={change.isPending} onClick={() => setConfirming('turnOff')}>
                <ShieldOff aria-hidden="true" className="h-4 w-4" />
                {m.turnOff}
              </Button>
            </div>
          ) : (
            <Button busy={change.isPending} onClick={() => run('turnOn')}>
              <ShieldCheck aria-hidden="true" className="h-4 w-4" />
              {m.turnOn}
            </Button>
          )}
        </>
      )}
    </section>
  );
}
