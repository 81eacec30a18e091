import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { DecideReviews, EditReview } from '../../shared/reviews/review-schemas.ts';

/** The reviews feature's query keys: a decision or an edit reads every one of them again. */
export const reviewKeys = {
  all: ['reviews'] as const,
  list: ['reviews', 'list'] as const,
  count: ['reviews', 'count'] as const,
};
/** The list changes as events arrive; a minute-old list is still one to decide from. */
const REFRESH_MS = 15_000;

export function useReviews() {
  return useQuery({ queryKey: reviewKeys.list, queryFn: () => callEndpoint(endpoints.reviews.list), refetchInterval: REFRESH_MS, retry: retryWhenBusy });
}

export function usePendingReviewCount() {
  return useQuery({ queryKey: reviewKeys.count, queryFn: () => callEndpoint(endpoints.reviews.count), refetchInterval: REFRESH_MS, retry: retryWhenBusy });
}

/** Approve or reject; the list and the events are read again afterwards. */
export function useDecideReviews() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DecideReviews) => callEndpoint(endpoints.reviews.decide, { body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
  });
}

export function useEditReview() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ eventId, body }: { eventId: string; body: EditReview }) => callEndpoint(endpoints.reviews.edit, { params: { eventId }, body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
  });
}
