/** Reading a test run's printed output, for the summary at the end of `npm test`. */

/**
 * What vitest printed about errors outside the tests (its "Unhandled Errors" block and the
 * lines after it), or the output's last lines when there is no such block; colours removed.
 */
export function errorsOutsideTests(output: string, maxLines = 40): string {
  // eslint-disable-next-line no-control-regex -- colour codes are escape sequences
  const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const start = lines.findIndex((line) => /Unhandled (Errors?|Rejection)|Errors? occurred while running/.test(line));
  const picked = start >= 0 ? lines.slice(start, start + maxLines) : lines.filter((line) => line.trim() !== '').slice(-maxLines);
  return picked.map((line) => `      ${line}`).join('\n');
}
