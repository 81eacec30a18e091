import { useState, type FormEvent } from 'react';
import { Card } from '../ui/card.tsx';
import { Button, buttonClasses } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { Alert } from '../ui/alert.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { formatEventTime } from '../events/event-status-badge.tsx';
import type { PrivacyRequest, ShopperEraseResult, ShopperSummary } from '../../shared/privacy/privacy-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { endpointAddress } from '../../shared/api/endpoint.ts';
import { useEraseShopper, usePrivacyEndpoint, usePrivacyRequests, useShopperLookup } from './use-privacy.ts';
import { PageTitle } from '../app/page-title.tsx';

const topicLabels: Record<PrivacyRequest['topic'], string> = {
  'customers/data_request': 'Shopify: data request',
  'customers/redact': 'Shopify: erase shopper',
  'shop/redact': 'Shopify: erase shop',
  'owner/erase': 'Erased by you',
};

/** Settings → Privacy: find, export and erase a shopper, and every privacy request with what became of it. */
export function PrivacyPage() {
  return (
    <div className="space-y-6">
      <PageTitle title="Privacy · Flowsmith" />
      <header className="space-y-2">
        <h1 className="text-2xl font-bold text-slate-900">Privacy</h1>
        <p className="text-slate-700">What Flowsmith keeps about your shoppers: look a shopper up, download it, or erase it. Shopify’s privacy requests are listed below.</p>
      </header>
      <FindShopper />
      <AuditList />
    </div>
  );
}

function FindShopper() {
  const [input, setInput] = useState('');
  const [email, setEmail] = useState<string | null>(null);
  // Kept here, not in the result below: the erasure refetches the shopper, which replaces the result.
  const [erased, setErased] = useState<ShopperEraseResult | null>(null);
  const shopper = useShopperLookup(email);
  const search = (event: FormEvent) => {
    event.preventDefault();
    setErased(null);
    setEmail(input.trim().toLowerCase());
  };
  return (
    <Card>
      <section aria-labelledby="find-shopper" className="space-y-4">
        <h2 id="find-shopper" className="text-lg font-semibold text-slate-900">
          Find a shopper
        </h2>
        <form onSubmit={search} className="flex flex-wrap items-end gap-3">
          <div className="min-w-64 flex-1">
            <TextField label="Shopper’s email" type="email" required value={input} onChange={(event) => setInput(event.target.value)} />
          </div>
          <Button type="submit">Find</Button>
        </form>
        {shopper.isFetching ? <Spinner label="Looking the shopper up" /> : null}
        {shopper.isError ? <Alert tone="error">{shopper.error.message}</Alert> : null}
        {erased ? (
          <Alert tone={erased.klaviyo === 'failed' ? 'warning' : 'success'}>
            Erased {erased.recordsAffected} records.{erased.klaviyoMessage ? ` ${erased.klaviyoMessage}` : ''}
          </Alert>
        ) : null}
        {shopper.data && !shopper.isFetching ? <ShopperResult summary={shopper.data} onErased={setErased} /> : null}
      </section>
    </Card>
  );
}

function ShopperResult({ summary, onErased }: { summary: ShopperSummary; onErased: (result: ShopperEraseResult) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [unsetKlaviyo, setUnsetKlaviyo] = useState(false);
  const erase = useEraseShopper((result) => {
    setConfirming(false);
    onErased(result);
  });
  return (
    <div className="space-y-3 [overflow-wrap:anywhere]" aria-live="polite">
      {!summary.found ? (
        <p className="text-slate-700">Nothing is kept about {summary.email}.</p>
      ) : (
        <>
          <p className="text-slate-800">
            Kept about <strong>{summary.email}</strong>: {counted(summary.events, 'event')}, {counted(summary.texts, 'text')}, {counted(summary.timers, 'timer')}
            {summary.otherRecords > 0 ? `, ${counted(summary.otherRecords, 'sandbox record')}` : ''}.
          </p>
          <ul className="divide-y divide-slate-200 rounded-md border border-slate-200 text-sm" aria-label="Events of this shopper">
            {summary.recentEvents.map((event) => (
              <li key={event.id} className="flex flex-wrap gap-x-4 px-3 py-2 text-slate-700">
                <span className="font-medium text-slate-900">{event.flowType.replaceAll('_', ' ')}</span>
                <span>{event.status}</span>
                <span>{event.texts} texts</span>
                <span>{formatEventTime(event.receivedAt)}</span>
              </li>
            ))}
          </ul>
          <div className="flex flex-wrap gap-3">
            <a
              className={buttonClasses('secondary')}
              href={endpointAddress(endpoints.privacy.shopperExport, { query: { email: summary.email } })}
              download
            >
              Export (JSON)
            </a>
            {!confirming ? (
              <Button variant="danger" onClick={() => setConfirming(true)}>
                Erase
              </Button>
            ) : null}
          </div>
          {confirming ? (
            <div role="group" aria-label="Confirm erasure" className="space-y-3 rounded-md border border-red-200 bg-red-50 p-4">
              <p className="text-sm text-red-900">Everything Flowsmith keeps about {summary.email} is deleted for good: events, texts, timers.</p>
              <CheckboxField label="Also remove Flowsmith's properties from the shopper's Klaviyo profile" checked={unsetKlaviyo} onChange={(event) => setUnsetKlaviyo(event.target.checked)} />
              {erase.isError ? <Alert tone="error">{erase.error.message}</Alert> : null}
              <div className="flex gap-3">
                <Button variant="danger" busy={erase.isPending} onClick={() => erase.mutate({ email: summary.email, unsetKlaviyo })}>
                  Erase for good
                </Button>
                <Button variant="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </Button>
              </div>
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}

function AuditList() {
  const endpoint = usePrivacyEndpoint();
  const requests = usePrivacyRequests();
  return (
    <Card>
      <section aria-labelledby="privacy-requests" className="space-y-4">
        <h2 id="privacy-requests" className="text-lg font-semibold text-slate-900">
          Privacy requests
        </h2>
        {endpoint.data ? <p className="break-all text-sm text-slate-700">Shopify sends them to {endpoint.data.url}</p> : null}
        {requests.isPending ? <Spinner label="Loading privacy requests" /> : null}
        {requests.isError ? <Alert tone="error">{requests.error.message}</Alert> : null}
        {requests.data && requests.data.requests.length === 0 ? <p className="text-slate-700">No privacy requests yet.</p> : null}
        {requests.data && requests.data.requests.length > 0 ? (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" aria-label="Privacy requests">
              <thead className="text-slate-700">
                <tr>
                  <th className="py-2 pr-4 font-medium">Request</th>
                  <th className="py-2 pr-4 font-medium">Shopper or shop</th>
                  <th className="py-2 pr-4 font-medium">Received</th>
                  <th className="py-2 pr-4 font-medium">Done</th>
                  <th className="py-2 pr-4 font-medium">Records</th>
                  <th className="py-2 font-medium">Export</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200 text-slate-800">
                {requests.data.requests.map((request) => (
                  <tr key={request.id}>
                    <td className="py-2 pr-4">{topicLabels[request.topic]}</td>
                    <td className="py-2 pr-4 break-all">{request.shopperEmail ?? request.shopDomain ?? '—'}</td>
                    <td className="py-2 pr-4">{formatEventTime(request.receivedAt)}</td>
                    <td className="py-2 pr-4">{request.doneAt ? formatEventTime(request.doneAt) : 'Pending'}</td>
                    <td className="py-2 pr-4">{request.recordsAffected ?? '—'}</td>
                    <td className="py-2">
                      {request.exportLocation ? (
                        <a className="font-medium text-indigo-700 underline" href={request.exportLocation} download>
                          Download
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </Card>
  );
}

/** "1 event", "2 events". */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
