import type { FieldValues, Resolver } from 'react-hook-form';
import { ApiRequestError, networkErrorBody } from './api-client.ts';

export interface Deferred<T> {
  /** The loaded value, fetched at the first call (or the first `preload()`) and kept. */
  get(): Promise<T>;
  /** Starts fetching, e.g. when a form is first focused, so a submit does not wait for it. */
  preload(): void;
}

/**
 * Code fetched when it is first needed instead of with the page: the shared zod schemas a
 * form checks its input with. zod alone is about a sixth of the sign-in page's first
 * load, and most visitors look at a page before they use its forms. A failed fetch is
 * tried again at the next call, and meanwhile fails as a request that could not reach
 * the server does.
 */
export function deferred<T>(load: () => Promise<T>): Deferred<T> {
  let loading: Promise<T> | null = null;
  const get = (): Promise<T> =>
    (loading ??= load().catch(() => {
      loading = null;
      throw new ApiRequestError(0, networkErrorBody);
    }));
  return { get, preload: () => void get().catch(() => undefined) };
}

export interface DeferredResolver<T extends FieldValues, Output = T> {
  resolver: Resolver<T, unknown, Output>;
  /** Starts fetching the checks, e.g. when the form is first focused, so a submit does not wait for them. */
  preload(): void;
}

/**
 * A form resolver whose code (the shared zod schema and its resolver) is fetched when the
 * form is first used (see `deferred`). The checks are the shared schema's own, so the
 * browser and the server still judge input alike.
 */
export function deferredResolver<T extends FieldValues, Output = T>(load: () => Promise<Resolver<T, unknown, Output>>): DeferredResolver<T, Output> {
  const checks = deferred(load);
  return {
    resolver: async (values, context, options) => (await checks.get())(values, context, options),
    preload: checks.preload,
  };
}
