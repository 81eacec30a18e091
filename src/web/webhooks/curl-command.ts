import { webhookConsoleMessages } from '../../shared/webhooks/webhook-messages.ts';

/** Single-quotes a value for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command that, pasted into a terminal, posts the payload to the flow as a real sender
 * would. Generic flows need no header beyond the content type (the URL's id is the
 * secret); an invalid payload gives a commented hint instead of a command that would fail.
 */
export function curlCommand(webhookUrl: string, payloadText: string): string {
  let compact: string;
  try {
    compact = JSON.stringify(JSON.parse(payloadText));
  } catch {
    return webhookConsoleMessages.curlInvalidHint;
  }
  return [`curl -X POST ${shellQuote(webhookUrl)}`, `  -H 'Content-Type: application/json'`, `  --data-raw ${shellQuote(compact)}`].join(' \\\n');
}
