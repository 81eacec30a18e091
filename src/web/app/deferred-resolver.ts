import type { FieldValues, Resolver } from 'react-hook-form';
import { ApiRequestError, networkErrorBody } from './api-client.ts';

export interface DeferredResolver<T extends FieldValues> {
  resolver: Resolver<T>;
  /** Starts fetching the checks, e.g. when the form is first focused, so a submit does not wait for them. */
  preload(): void;
}

/**
 * A form resolver whose code (the shared zod schema and its resolver) is fetched when the
 * form is first used instead of with the page: zod is about a sixth of the sign-in page's
 * first load. The checks are the shared schema's own, so the browser and the server still
 * judge input alike. A failed fetch is tried again at the next check, and meanwhile fails
 * the check as a request that could not reach the server does.
 */
export function deferredResolver<T extends FieldValues>(load: () => Promise<Resolver<T>>): DeferredResolver<T> {
  let loading: Promise<Resolver<T>> | null = null;
  const loaded = (): Promise<Resolver<T>> =>
    (loading ??= load().catch(() => {
      loading = null;
      throw new ApiRequestError(0, networkErrorBody);
    }));
  return {
    resolver: async (values, context, options) => (await loaded())(values, context, options),
    preload: () => void loaded().catch(() => undefined),
  };
}
