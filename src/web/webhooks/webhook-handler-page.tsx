import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { toast } from '../app/toast.ts';
import { CheckCircle2, XCircle } from 'lucide-react';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import { AuthShell } from '../layout/auth-shell.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { ButtonLink } from '../ui/text-link.tsx';
import { pageRoutes } from '../../shared/routes.ts';
import { requestMessages } from '../../shared/messages.ts';
import type { WebhookStatusResponse } from '../../shared/webhooks/webhook-schemas.ts';
import { webhookHandlerMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/**
 * docs/product/specification.md §9: the page shows its result after 2 s; its toasts stay
 * 3 s (success) or 5 s (error).
 */
const HANDLER_RESULT_DELAY_MS = 2_000;
const HANDLER_SUCCESS_TOAST_MS = 3_000;
const HANDLER_ERROR_TOAST_MS = 5_000;

type Outcome = { state: 'processing' } | { state: 'processed'; result: WebhookStatusResponse } | { state: 'error'; message: string };

/**
 * The webhook handler page of docs/product/specification.md §2, what a browser shows for
 * a webhook URL: a real check of that endpoint (docs/product/product-rules.md §1) instead
 * of a locally made-up result.
 */
export function WebhookHandlerPage() {
  const { flowType = '', flowId = '' } = useParams();
  const [outcome, setOutcome] = useState<Outcome>({ state: 'processing' });

  useEffect(() => {
    let current = true;
    const minimumWait = new Promise((resolve) => setTimeout(resolve, HANDLER_RESULT_DELAY_MS));
    void (async () => {
      try {
        const result = await callEndpoint(endpoints.webhooks.status, { params: { flowType, flowId } });
        await minimumWait;
        if (!current) return;
        setOutcome({ state: 'processed', result });
        if (result.success) toast.success(result.message, { duration: HANDLER_SUCCESS_TOAST_MS });
        else toast.error(result.message, { duration: HANDLER_ERROR_TOAST_MS });
      } catch (error) {
        await minimumWait;
        if (!current) return;
        const message = error instanceof ApiRequestError ? error.message : requestMessages.internal;
        setOutcome({ state: 'error', message });
        toast.error(m.errorLine(message), { duration: HANDLER_ERROR_TOAST_MS });
      }
    })();
    return () => {
      current = false;
    };
  }, [flowType, flowId]);

  if (outcome.state === 'processing') {
    return (
      <AuthShell title={m.processing}>
        <Spinner label={m.processing} />
      </AuthShell>
    );
  }
  if (outcome.state === 'error') {
    return (
      <AuthShell title={m.error}>
        <div className="space-y-6 text-center">
          <XCircle aria-hidden="true" className="mx-auto h-12 w-12 text-red-600" />
          <p role="alert" className="text-slate-700">
            {m.errorLine(outcome.message)}
          </p>
          <ButtonLink to={pageRoutes.dashboard} className="w-full">
            Return to Dashboard
          </ButtonLink>
        </div>
      </AuthShell>
    );
  }
  const { result } = outcome;
  return (
    <AuthShell title={m.processed}>
      <div className="space-y-6">
        <CheckCircle2 aria-hidden="true" className={`mx-auto h-12 w-12 ${result.success ? 'text-green-600' : 'text-amber-600'}`} />
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm" data-testid="webhook-result">
          <dt className="font-medium text-slate-900">success</dt>
          <dd className="text-slate-700">{String(result.success)}</dd>
          <dt className="font-medium text-slate-900">message</dt>
          <dd className="text-slate-700">{result.message}</dd>
          <dt className="font-medium text-slate-900">flowType</dt>
          <dd className="font-mono text-slate-700">{result.flowType}</dd>
          <dt className="font-medium text-slate-900">flowId</dt>
          <dd className="break-all font-mono text-slate-700">{result.flowId}</dd>
          <dt className="font-medium text-slate-900">timestamp</dt>
          <dd className="text-slate-700">{result.timestamp}</dd>
        </dl>
        <ButtonLink to={pageRoutes.dashboard} className="w-full">
          Return to Dashboard
        </ButtonLink>
      </div>
    </AuthShell>
  );
}
