import { expect, it } from 'vitest';
import { errorsOutsideTests } from '../../scripts/test-output.ts';

// A CI log keeps only the run's last lines. When vitest fails a run whose tests all passed
// (an unhandled rejection, a worker that died), those lines must still say what went wrong.
const passingLines = Array.from({ length: 60 }, (_, index) => ` \u001b[32m✓\u001b[39m test/integration/file-${index}.test.ts (3 tests) 812ms`);

it('picks vitest\'s "Unhandled Errors" block, without colour codes, out of a long output', () => {
  const output = [
    ...passingLines,
    '\u001b[31m⎯⎯⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯⎯⎯\u001b[39m',
    'Vitest caught 1 unhandled error during the test run.',
    'Error: Connection terminated unexpectedly',
    ' ❯ Connection.<anonymous> node_modules/pg/lib/client.js:132:73',
    ' Test Files  60 passed (60)',
  ].join('\n');
  const picked = errorsOutsideTests(output);
  expect(picked.split('\n')[0]).toContain('Unhandled Errors');
  expect(picked).toContain('Error: Connection terminated unexpectedly');
  expect(picked).not.toContain('file-3.test.ts');
  expect(picked).not.toContain('\u001b[');
});

it('falls back to the last lines when vitest printed no such block', () => {
  const output = [...passingLines, '', 'Segmentation fault (core dumped)', ''].join('\n');
  const picked = errorsOutsideTests(output, 5).split('\n');
  expect(picked).toHaveLength(5);
  expect(picked.at(-1)).toContain('Segmentation fault');
});
