import { afterEach, beforeEach, vi } from 'vitest';

// An error printed to the console is a bug somebody missed; make it fail the test.
let spy: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  spy = vi.spyOn(console, 'error');
});
afterEach(() => {
  const calls = spy.mock.calls;
  spy.mockRestore();
  if (calls.length > 0) throw new Error(`console.error was called: ${calls.map((c: unknown[]) => c.map(String).join(' ')).join('\n')}`);
});
