import { toast } from '../app/toast.ts';
import { Button } from '../ui/button.tsx';
import { usePrivacyEndpoint } from './use-privacy.ts';

/** The owner's address for Shopify's compliance webhooks, shown with the store connection. */
export function PrivacyWebhookAddress() {
  const endpoint = usePrivacyEndpoint();
  if (!endpoint.data) return null;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(endpoint.data.url);
      toast.success('Privacy webhook address copied');
    } catch {
      toast.error('Could not copy; select the address and copy it yourself');
    }
  };
  return (
    <div className="space-y-2 border-t border-slate-100 pt-4">
      <h3 className="text-sm font-semibold text-slate-800">Privacy webhooks</h3>
      <p className="text-sm text-slate-700">
        Paste this address into your Shopify app’s compliance webhooks (customer data request, customer redact, shop redact). Requests are listed under Privacy.
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <code className="break-all rounded bg-slate-50 px-2 py-1 font-mono text-sm text-slate-900" data-testid="privacy-webhook-url">
          {endpoint.data.url}
        </code>
        <Button variant="secondary" onClick={() => void copy()}>
          Copy
        </Button>
      </div>
    </div>
  );
}
