import { useId, useState } from 'react';
import { toast } from '../app/toast.ts';
import { RefreshCw } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { ApiRequestError } from '../app/api-client.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { webhookUrlRotationMessages as m } from '../../shared/flows/flow-messages.ts';
import { webhookUrlGraceOptions, type WebhookUrlGraceMinutes } from '../../shared/flows/webhook-url-grace.ts';
import { planStoreSubscriptions } from '../../shared/shopify-connect/store-subscription-plan.ts';
import { useFlows, useRotateWebhookUrl } from './use-flows.ts';

/** One day's grace is the choice that protects most senders while still ending the old URL soon. */
const DEFAULT_GRACE_MINUTES: WebhookUrlGraceMinutes = 1_440;

/**
 * Beside the flow's URL: that whoever holds it can send events, until when the URL
 * replaced by the last rotation still works, and Rotate URL, which asks when the current
 * URL should stop before it does anything (senders can lose events).
 */
export function WebhookUrlRotation({ flow }: { flow: Flow }) {
  const rotate = useRotateWebhookUrl(flow.flowType);
  const [confirming, setConfirming] = useState(false);
  const [graceMinutes, setGraceMinutes] = useState<WebhookUrlGraceMinutes>(DEFAULT_GRACE_MINUTES);
  const ids = { title: useId(), legend: useId() };
  const flows = useFlows();
  // The flow's own topics, or the orders it receives for every abandonment flow while Post Purchase is off.
  const hasShopifyWebhooks = planStoreSubscriptions(flows.data ?? [flow]).some((planned) => planned.flowType === flow.flowType);

  function confirm() {
    rotate.mutate(graceMinutes, {
      onSuccess: () => {
        setConfirming(false);
        toast.success(graceMinutes === 0 ? m.rotatedAtOnce : m.rotated);
      },
      onError: (error) => {
        toast.error(m.rotateFailed(error instanceof ApiRequestError ? error.message : String(error)));
      },
    });
  }

  return (
    <div className="space-y-3">
      <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="flow-webhook-url-notice">
        {m.secretNotice}
      </p>
      {flow.previousWebhookUrlValidUntil ? (
        <div className="space-y-1 text-sm text-slate-700" data-testid="flow-previous-webhook-url">
          <p>{m.previousValidUntil(new Date(flow.previousWebhookUrlValidUntil).toLocaleString())}</p>
          {hasShopifyWebhooks ? <p>{m.moveShopifySubscriptions}</p> : null}
        </div>
      ) : null}
      {confirming ? (
        <div role="group" aria-labelledby={ids.title} className="space-y-3 rounded-md border border-red-200 bg-red-50 p-3">
          <p id={ids.title} className="text-sm font-semibold text-red-900">
            {m.rotateTitle}
          </p>
          <p className="text-sm text-red-900">{m.rotateExplanation}</p>
          <fieldset className="space-y-1">
            <legend id={ids.legend} className="text-sm font-medium text-slate-900">
              {m.graceLegend}
            </legend>
            {webhookUrlGraceOptions.map((option) => (
              <label key={option.minutes} className="flex items-center gap-2 text-sm text-slate-900">
                <input
                  type="radio"
                  name={`${ids.legend}-grace`}
                  value={option.minutes}
                  checked={graceMinutes === option.minutes}
                  onChange={() => setGraceMinutes(option.minutes)}
                  className="h-4 w-4 border-slate-300 text-indigo-600 focus:ring-indigo-500"
                />
                {option.label}
              </label>
            ))}
          </fieldset>
          <div className="flex flex-wrap gap-2">
            <Button variant="danger" busy={rotate.isPending} onClick={confirm}>
              {m.confirm}
            </Button>
            <Button variant="secondary" disabled={rotate.isPending} onClick={() => setConfirming(false)}>
              {m.cancel}
            </Button>
          </div>
        </div>
      ) : (
        <Button variant="secondary" onClick={() => setConfirming(true)}>
          <RefreshCw aria-hidden="true" className="h-4 w-4" />
          {m.rotate}
        </Button>
      )}
    </div>
  );
}
