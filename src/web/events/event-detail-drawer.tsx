import { useEffect, useRef, type ReactNode } from 'react';
import { toast } from '../app/toast.ts';
import { RotateCcw, X } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { Alert } from '../ui/alert.tsx';
import { replayableStatuses } from '../../shared/events/event-statuses.ts';
import type { EventDetail } from '../../shared/events/event-schemas.ts';
import { eventLogMessages } from '../../shared/events/event-messages.ts';
import { EventStatusBadge, formatEventTime, sourceLabels, WaitsUntil } from './event-status-badge.tsx';
import { useEventDetail, useReplayEvent } from './use-events.ts';
import { TextLink } from '../ui/text-link.tsx';
import { isSandboxEvent, sandboxProfilesPath } from '../../shared/sandbox/sandbox-events.ts';
import { useSandboxStatus } from '../sandbox/use-sandbox.ts';
import { SandboxBadge } from '../sandbox/sandbox-badge.tsx';
import { estimatedCostReason } from '../../shared/flows/flow-costs.ts';
import { experimentGroupLabel, experimentMessages } from '../../shared/experiments/experiment-messages.ts';
import { TextCheckResults } from '../text-checks/text-check-results.tsx';
import { recommendationMessages } from '../../shared/flows/flow-messages.ts';
import type { RecommendedProduct } from '../../shared/flows/recommendation-schemas.ts';

/** A recommendations list written to a profile property, in one line: "3 recommended products: A (24.00 EUR), B (…)". */
function describeRecommendedProducts(products: readonly RecommendedProduct[]): string {
  const summary = recommendationMessages.listSummary(products.length);
  if (products.length === 0) return summary;
  const items = products.map((product) => `${product.title} (${product.currency ? `${product.price} ${product.currency}` : product.price})`);
  return `${summary}: ${items.join(', ')}`;
}

/**
 * One event in full, in a panel over the page: what arrived, how it was read, what each
 * assistant was asked and wrote (with tokens and time), what Klaviyo answered, and Replay.
 * Escape or the close button closes it and gives focus back to the list.
 */
export function EventDetailDrawer({ eventId, onClose }: { eventId: string; onClose: () => void }) {
  const detail = useEventDetail(eventId);
  const replay = useReplayEvent();
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const event = detail.data;
  const canReplay = event ? replayableStatuses.includes(event.status) : false;
  const onReplay = () => {
    replay.mutate(eventId, {
      onSuccess: () => {
        toast.success(eventLogMessages.replayed);
        void detail.refetch();
      },
      onError: (error) => toast.error(error.message),
    });
  };

  return (
    <div className="fixed inset-0 z-40 flex justify-end bg-slate-900/30" onClick={onClose}>
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="event-detail-heading"
        className="flex h-full w-full max-w-2xl flex-col overflow-y-auto bg-white shadow-xl"
        onClick={(click) => click.stopPropagation()}
      >
        <header className="sticky top-0 flex items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 py-3 sm:gap-4 sm:px-6 sm:py-4">
          <h2 id="event-detail-heading" className="text-lg font-semibold text-slate-900">
            Event details
          </h2>
          <div className="flex items-center gap-2">
            {canReplay ? (
              <Button variant="secondary" onClick={onReplay} disabled={replay.isPending}>
                <RotateCcw aria-hidden="true" className="h-4 w-4" />
                Replay
              </Button>
            ) : null}
            <button ref={closeButton} type="button" onClick={onClose} className="rounded-md p-2 text-slate-700 hover:bg-slate-100" aria-label="Close event details">
              <X aria-hidden="true" className="h-5 w-5" />
            </button>
          </div>
        </header>
        <div className="min-w-0 space-y-6 break-words px-4 py-4 sm:px-6">
          {detail.isPending ? (
            <Spinner label="Loading the event" />
          ) : detail.error ? (
            <Alert tone="error" title={eventLogMessages.loadFailed}>
              {detail.error.message}
            </Alert>
          ) : event ? (
            <EventDetailBody event={event} />
          ) : null}
        </div>
      </div>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-2">
      <h3 className="text-sm font-semibold uppercase tracking-wide text-slate-600">{title}</h3>
      {children}
    </section>
  );
}

function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre tabIndex={0} aria-label={label} className="max-h-72 overflow-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100">
      {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}

function prettyBody(body: string | null): string {
  if (body === null) return '(not stored)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function EventDetailBody({ event }: { event: EventDetail }) {
  const sandbox = isSandboxEvent(useSandboxStatus().data, event.receivedAt);
  return (
    <>
      {sandbox ? <SandboxBadge className="mb-3" /> : null}
      <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600">Status</dt>
        <dd>
          <EventStatusBadge status={event.status} />
          {event.attempt > 1 ? <span className="ml-2 text-slate-600">attempt {event.attempt}</span> : null}
          <WaitsUntil iso={event.waitsUntil} />
        </dd>
        <dt className="text-slate-600">Received</dt>
        <dd>{formatEventTime(event.receivedAt)}</dd>
        <dt className="text-slate-600">Source</dt>
        <dd>
          {sourceLabels[event.source]}
          {event.topic ? <span className="ml-2 font-mono text-xs text-slate-700">{event.topic}</span> : null}
        </dd>
        <dt className="text-slate-600">Shopper</dt>
        <dd>{[event.shopperName, event.shopperEmail].filter(Boolean).join(' · ') || 'Unknown'}</dd>
        <dt className="text-slate-600">Event id</dt>
        <dd className="break-all font-mono text-xs">{event.id}</dd>
        {event.experimentGroup ? (
          <>
            <dt className="text-slate-600">Experiment</dt>
            <dd data-testid="event-experiment-group">{experimentGroupLabel(event.experimentGroup.group)}</dd>
          </>
        ) : null}
      </dl>

      {event.error ? (
        <Alert tone={event.status === 'skipped' ? 'info' : 'error'} title={event.status === 'skipped' ? 'Why it was skipped' : 'What went wrong'}>
          {event.error}
        </Alert>
      ) : null}

      {event.generations.length > 0 ? (
        <Section title="AI assistants">
          <ul className="space-y-3">
            {event.generations.map((generation) => (
              <li key={generation.klaviyoProperty} className="space-y-2 rounded-md border border-slate-200 p-3">
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <p className="font-medium text-slate-900">
                    {generation.assistantName} <span className="font-mono text-xs text-slate-600">{generation.klaviyoProperty}</span>
                  </p>
                  <p className="text-xs text-slate-600">
                    {generation.model} · {generation.totalTokens.toLocaleString()} tokens
                    {generation.cachedInputTokens > 0 ? ` (${generation.cachedInputTokens.toLocaleString()} cached)` : ''} · {(generation.durationMs / 1000).toFixed(1)} s
                    {generation.costUsd > 0 ? ` · ${generation.costEstimated ? '≈ ' : ''}$${generation.costUsd.toFixed(4)}` : ''}
                    {generation.costEstimated ? ` (estimate: ${estimatedCostReason})` : ''}
                    {generation.serviceTier === 'flex' ? ' · flex tier' : ''}
                    {generation.reusedFrom === 'identical_request' ? ' · reused from an identical request' : generation.reused ? ' · kept from the previous attempt' : ''}
                  </p>
                </div>
                <p className="text-xs font-semibold text-slate-600">Prompt</p>
                <p className="whitespace-pre-wrap text-sm text-slate-800">{generation.prompt || '(empty)'}</p>
                <p className="text-xs font-semibold text-slate-600">{generation.checks?.delivered === 'nothing' ? 'Text (not delivered)' : 'Text'}</p>
                {generation.text ? (
                  <p className={`whitespace-pre-wrap rounded p-2 text-sm text-slate-900 ${generation.checks?.delivered === 'nothing' ? 'bg-slate-100' : 'bg-green-50'}`}>{generation.text}</p>
                ) : (
                  <p className="text-sm text-red-700">{generation.error}</p>
                )}
                {generation.status === 'succeeded' ? (
                  <>
                    <p className="text-xs font-semibold text-slate-600">Checks before delivery</p>
                    <TextCheckResults checks={generation.checks} />
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}

      {event.deliveries.length > 0 ? (
        <Section title="Klaviyo">
          <ul className="space-y-2 text-sm">
            {event.deliveries.map((delivery) => (
              <li key={delivery.id} className="rounded-md border border-slate-200 p-3">
                <p className="font-medium text-slate-900">
                  Attempt {delivery.attempt}:{' '}
                  {delivery.status === 'delivered'
                    ? delivery.holdout
                      ? experimentMessages.holdoutDelivered
                      : 'written to the profile'
                    : delivery.status === 'failed'
                      ? 'failed'
                      : 'in progress'}
                </p>
                {delivery.profileId ? (
                  <p className="text-slate-700">
                    Profile {delivery.profileId} {delivery.profileCreated ? 'created' : 'updated'}
                    {delivery.profileWrittenAt ? ` at ${formatEventTime(delivery.profileWrittenAt)}` : ''}
                  </p>
                ) : null}
                {delivery.klaviyoEventName ? (
                  <p className="text-slate-700">
                    Event &ldquo;{delivery.klaviyoEventName}&rdquo; {delivery.eventSentAt ? 'sent' : 'not sent'}
                  </p>
                ) : null}
                {/* The texts are shown with their assistants above; a list (the shop's recommendations) is only here. */}
                {Object.entries(delivery.properties).map(([property, value]) =>
                  Array.isArray(value) ? (
                    <p key={property} className="text-slate-700" data-testid="delivery-recommendations">
                      <span className="font-mono text-xs text-slate-600">{property}</span>: {describeRecommendedProducts(value)}
                    </p>
                  ) : null,
                )}
                {sandbox && delivery.profileId ? <TextLink to={sandboxProfilesPath(event.shopperEmail)}>Open the sandbox profile</TextLink> : null}
                {delivery.error ? <p className="text-red-700">{delivery.error}</p> : null}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}

      {event.normalized ? (
        <Section title="As Flowsmith read it">
          <Json value={event.normalized} label="The event as Flowsmith read it" />
        </Section>
      ) : null}
      <Section title="As received">
        <Json value={prettyBody(event.rawBody)} label="The event as received" />
      </Section>
    </>
  );
}
