import { Link } from 'react-router';
import { pageRoutes } from '../../shared/routes.ts';
import { reviewMessages as m } from '../../shared/reviews/review-messages.ts';
import { Alert } from '../ui/alert.tsx';
import { usePendingReviewCount } from './use-reviews.ts';

/** Texts waiting for the owner's approval, with the way to them; nothing when none wait. */
export function PendingReviewsNotice() {
  const count = usePendingReviewCount();
  const pending = count.data?.pending ?? 0;
  if (pending === 0) return null;
  return (
    <Alert tone="warning" title={m.pendingOnDashboard(pending)}>
      <Link to={pageRoutes.reviews} className="font-medium text-indigo-700 hover:underline">
        {m.openReviewList}
      </Link>
    </Alert>
  );
}
