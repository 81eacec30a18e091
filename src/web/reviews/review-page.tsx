import { useState } from 'react';
import { toast } from '../app/toast.ts';
import { ApiRequestError } from '../app/api-client.ts';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { Alert } from '../ui/alert.tsx';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { reviewMessages as m } from '../../shared/reviews/review-messages.ts';
import type { PendingReview } from '../../shared/reviews/review-schemas.ts';
import { TextCheckResults } from '../text-checks/text-check-results.tsx';
import { formatEventTime } from '../events/event-status-badge.tsx';
import { useDecideReviews, useEditReview, useReviews } from './use-reviews.ts';

/**
 * The review list (docs/decisions/0040-texts-checked-before-delivery.md): every text of
 * flows that require approval, with its event, prompt and checks; approve, edit or reject
 * each, or the selected ones at once.
 */
export function ReviewPage() {
  const reviews = useReviews();
  const decide = useDecideReviews();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const list = reviews.data?.reviews ?? [];
  const chosen = list.filter((review) => selected.has(review.eventId)).map((review) => review.eventId);

  const decideMany = (eventIds: string[], decision: 'approve' | 'reject') =>
    decide.mutate(
      { eventIds, decision },
      {
        onSuccess: (result) => {
          if (result.decided > 0) toast.success(decision === 'approve' ? m.approved(result.decided) : m.rejectedToast(result.decided));
          if (result.notDecided > 0) toast.error(m.notDecided(result.notDecided));
          setSelected((current) => new Set([...current].filter((id) => !eventIds.includes(id))));
        },
        onError: (error) => toast.error(m.decideFailed(error instanceof ApiRequestError ? error.message : String(error))),
      },
    );

  return (
    <div className="space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{m.pageTitle}</h1>
        <p className="text-slate-700">{m.pageHint}</p>
      </header>
      {reviews.isPending ? (
        <Spinner label={m.pageTitle} />
      ) : reviews.isError ? (
        <Alert tone="error" title={m.loadFailed}>
          {reviews.error instanceof ApiRequestError ? reviews.error.message : null}
        </Alert>
      ) : list.length === 0 ? (
        <Card>
          <p className="text-slate-700">{m.empty}</p>
        </Card>
      ) : (
        <>
          <div className="flex flex-wrap items-center gap-3">
            <label className="inline-flex items-center gap-2 text-sm text-slate-800">
              <input
                type="checkbox"
                checked={chosen.length === list.length}
                onChange={(event) => setSelected(event.target.checked ? new Set(list.map((review) => review.eventId)) : new Set())}
              />
              {m.selectAll}
            </label>
            <Button disabled={chosen.length === 0 || decide.isPending} onClick={() => decideMany(chosen, 'approve')}>
              {m.approveSelected(chosen.length)}
            </Button>
            <Button variant="secondary" disabled={chosen.length === 0 || decide.isPending} onClick={() => decideMany(chosen, 'reject')}>
              {m.rejectSelected(chosen.length)}
            </Button>
          </div>
          <ul className="space-y-4">
            {list.map((review) => (
              <ReviewCard
                key={review.eventId}
                review={review}
                selected={selected.has(review.eventId)}
                onSelect={(on) => setSelected((current) => (on ? new Set([...current, review.eventId]) : new Set([...current].filter((id) => id !== review.eventId))))}
                onDecide={(decision) => decideMany([review.eventId], decision)}
                busy={decide.isPending}
              />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function ReviewCard({
  review,
  selected,
  onSelect,
  onDecide,
  busy,
}: {
  review: PendingReview;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onDecide: (decision: 'approve' | 'reject') => void;
  busy: boolean;
}) {
  const edit = useEditReview();
  const [drafts, setDrafts] = useState<Record<string, string> | null>(null);
  const editable = review.texts.filter((text) => text.text !== null && text.checks?.delivered !== 'nothing');

  const saveEdit = () => {
    // Nothing changed: an ordinary approval, which counts towards automatic approval.
    if (!drafts || Object.keys(drafts).every((property) => drafts[property] === review.texts.find((text) => text.klaviyoProperty === property)?.text)) {
      setDrafts(null);
      onDecide('approve');
      return;
    }
    edit.mutate(
      { eventId: review.eventId, body: { texts: drafts ?? {} } },
      {
        onSuccess: () => {
          toast.success(m.approved(1));
          setDrafts(null);
        },
        onError: (error) => toast.error(m.decideFailed(error instanceof ApiRequestError ? error.message : String(error))),
      },
    );
  };

  return (
    <li className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="review">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <label className="inline-flex items-center gap-2">
          <input type="checkbox" checked={selected} onChange={(event) => onSelect(event.target.checked)} aria-label={m.select(review.shopperEmail)} />
          <span className="font-medium text-slate-900">{review.shopperEmail ?? '—'}</span>
        </label>
        <p className="text-xs text-slate-600">
          {flowTypeDetails[review.flowType].title} · {formatEventTime(review.receivedAt)} · {m.expiresAt(formatEventTime(review.expiresAt))}
        </p>
      </div>
      {review.texts.map((text) => (
        <div key={text.klaviyoProperty} className="space-y-2 rounded-md border border-slate-100 p-3">
          <p className="text-sm font-medium text-slate-900">
            {text.assistantName} <span className="font-mono text-xs text-slate-600">{text.klaviyoProperty}</span>
          </p>
          <details className="text-sm text-slate-700">
            <summary className="cursor-pointer text-xs font-semibold text-slate-600">Prompt</summary>
            <p className="whitespace-pre-wrap">{text.prompt}</p>
          </details>
          {drafts && text.text !== null && text.checks?.delivered !== 'nothing' ? (
            <textarea
              aria-label={`Text of ${text.assistantName}`}
              className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
              rows={4}
              value={drafts[text.klaviyoProperty] ?? text.text}
              onChange={(event) => setDrafts({ ...drafts, [text.klaviyoProperty]: event.target.value })}
            />
          ) : (
            <p className="whitespace-pre-wrap rounded bg-green-50 p-2 text-sm text-slate-900">{text.text ?? '—'}</p>
          )}
          <TextCheckResults checks={text.checks} />
        </div>
      ))}
      <div className="flex flex-wrap gap-2">
        {drafts ? (
          <>
            <Button disabled={edit.isPending} onClick={saveEdit}>
              {m.saveAndApprove}
            </Button>
            <Button variant="secondary" onClick={() => setDrafts(null)}>
              {m.cancel}
            </Button>
          </>
        ) : (
          <>
            <Button disabled={busy} onClick={() => onDecide('approve')}>
              {m.approve}
            </Button>
            {editable.length > 0 ? (
              <Button variant="secondary" disabled={busy} onClick={() => setDrafts({})}>
                {m.edit}
              </Button>
            ) : null}
            <Button variant="secondary" disabled={busy} onClick={() => onDecide('reject')}>
              {m.reject}
            </Button>
          </>
        )}
      </div>
    </li>
  );
}
