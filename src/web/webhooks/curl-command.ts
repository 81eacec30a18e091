import { webhookConsoleMessages } from '../../shared/webhooks/webhook-messages.ts';
import { curlSignatureComment } from '../../shared/flows/flow-signature-messages.ts';

/** Single-quotes a value for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command that, pasted into a terminal, posts the payload to the flow as a real sender
 * would. Generic flows need no header beyond the content type (the URL's id is the
 * secret) unless the flow requires a signature; an invalid payload gives a commented hint
 * instead of a command that would fail.
 */
export function curlCommand(webhookUrl: string, payloadText: string, options: { signatureRequired?: boolean } = {}): string {
  let compact: string;
  try {
    compact = JSON.stringify(JSON.parse(payloadText));
  } catch {
    return webhookConsoleMessages.curlInvalidHint;
  }
  const command = [`curl -X POST ${shellQuote(webhookUrl)}`, `  -H 'Content-Type: application/json'`, `  --data-raw ${shellQuote(compact)}`].join(' \\\n');
  // The secret is never in the browser after it was first shown, so the command cannot be
  // signed; a comment line says so (a shell ignores it).
  return options.signatureRequired ? `${curlSignatureComment}\n${command}` : command;
}
