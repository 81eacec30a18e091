import { useId } from 'react';
import { Send, Terminal } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { webhookConsoleMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import { curlSignatureNote } from '../../shared/flows/flow-signature-messages.ts';

interface RequestPanelProps {
  payload: string;
  payloadError: string | null;
  freshIdentity: boolean;
  dryRun: boolean;
  /** Nothing can be sent or copied without the flow's webhook URL. */
  webhookUrl: string | null;
  sending: boolean;
  signatureRequired: boolean;
  onPayloadChange: (payload: string) => void;
  onFreshIdentityChange: (on: boolean) => void;
  onDryRunChange: (on: boolean) => void;
  onCopyCurl: () => void;
  onSend: () => void;
}

/** The test request: the payload, how it is sent, and Copy as cURL and Send Test Webhook. */
export function RequestPanel(props: RequestPanelProps) {
  const { payload, payloadError, freshIdentity, dryRun, webhookUrl, sending, signatureRequired } = props;
  const payloadId = useId();
  return (
    <div className="space-y-2">
      <label htmlFor={payloadId} className="block text-sm font-medium text-slate-800">
        Test Payload (JSON)
      </label>
      <textarea
        id={payloadId}
        value={payload}
        onChange={(event) => props.onPayloadChange(event.target.value)}
        rows={14}
        spellCheck={false}
        aria-invalid={payloadError ? true : undefined}
        aria-describedby={payloadError ? `${payloadId}-error` : undefined}
        className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
      />
      {payloadError ? (
        <p id={`${payloadId}-error`} role="alert" className="text-sm text-red-700">
          {payloadError}
        </p>
      ) : null}
      <CheckboxField label={m.freshIdentityLabel} checked={freshIdentity} onChange={(event) => props.onFreshIdentityChange(event.target.checked)} />
      <CheckboxField label={m.dryRunLabel} checked={dryRun} onChange={(event) => props.onDryRunChange(event.target.checked)} />
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={props.onCopyCurl} disabled={!webhookUrl}>
          <Terminal aria-hidden="true" className="h-4 w-4" />
          Copy as cURL
        </Button>
        <Button onClick={props.onSend} busy={sending} disabled={!webhookUrl}>
          <Send aria-hidden="true" className="h-4 w-4" />
          Send Test Webhook
        </Button>
      </div>
      {signatureRequired ? (
        <p className="text-sm text-slate-700" data-testid="curl-signature-note">
          {curlSignatureNote}
        </p>
      ) : null}
    </div>
  );
}
