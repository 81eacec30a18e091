import { inject, type ProvidedContext } from 'vitest';

/**
 * What a project's global set-up provided, or null: outside a test run (the benchmarks
 * share the test support) and in a project whose set-up did not provide it.
 */
export function providedOrNull<Key extends keyof ProvidedContext>(key: Key): ProvidedContext[Key] | null {
  try {
    return inject(key) ?? null;
  } catch {
    return null;
  }
}
