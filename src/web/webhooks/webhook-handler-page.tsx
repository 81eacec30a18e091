import { useParams } from 'react-router';
import { CheckCircle2, XCircle } from 'lucide-react';
import { AuthShell } from '../layout/auth-shell.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { ButtonLink } from '../ui/text-link.tsx';
import { pageRoutes } from '../../shared/routes.ts';
import { webhookHandlerMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import { useWebhookStatus, webhookStatusErrorMessage } from './use-webhooks.ts';

/**
 * The webhook handler page of docs/product/specification.md §2, what a browser shows for
 * a webhook URL: a real check of that endpoint (docs/product/product-rules.md §1) instead
 * of a locally made-up result.
 */
export function WebhookHandlerPage() {
  const { flowType = '', flowId = '' } = useParams();
  const status = useWebhookStatus(flowType, flowId);

  if (status.isPending) {
    return (
      <AuthShell title={m.processing}>
        <Spinner label={m.processing} />
      </AuthShell>
    );
  }
  if (status.isError) {
    return (
      <AuthShell title={m.error}>
        <div className="space-y-6 text-center">
          <XCircle aria-hidden="true" className="mx-auto h-12 w-12 text-red-600" />
          <p role="alert" className="text-slate-700">
            {m.errorLine(webhookStatusErrorMessage(status.error))}
          </p>
          <ButtonLink to={pageRoutes.dashboard} className="w-full">
            Return to Dashboard
          </ButtonLink>
        </div>
      </AuthShell>
    );
  }
  const result = status.data;
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
