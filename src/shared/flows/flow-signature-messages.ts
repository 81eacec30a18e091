import { FLOW_SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS } from './flow-signing.ts';

/**
 * Texts of "Require a signature" (docs/product/product-rules.md §2). The screens of
 * docs/product/specification.md have none for this, so they are ours: each says what
 * happens and, where the owner or a sender can act, how.
 */
export const flowSignatureMessages = {
  title: 'Signature',
  description:
    "Require generic JSON senders (Klaviyo webhook actions, Zapier, your own scripts) to sign each request with this flow's secret. Shopify webhooks, the browsing pixel and the test console's sends are not affected.",
  stateOff: 'Not required: any request to this webhook URL is accepted.',
  stateOn: `Required: generic requests without a valid ${FLOW_SIGNATURE_HEADER} header are refused.`,
  turnOn: 'Require a signature',
  generateNew: 'Generate new secret',
  turnOff: 'Turn off',
  cancel: 'Cancel',
  confirmGenerateNew: 'Generate a new secret? Senders that use the current one keep working for 1 hour; after that their requests are refused.',
  confirmGenerateNewButton: 'Yes, generate a new secret',
  confirmTurnOff: 'Stop requiring a signature? Anyone who knows the webhook URL can then send events to this flow.',
  confirmTurnOffButton: 'Yes, turn off',
  secretLabel: 'Signing secret',
  secretShownOnce: 'Copy this secret now and keep it with the sender. It will not be shown again; if it is lost, generate a new one.',
  copySecret: 'Copy secret',
  secretCopied: 'Signing secret copied to clipboard',
  secretCopyFailed: 'Failed to copy the signing secret',
  maskedLabel: 'Current secret',
  previousValidUntil: (time: string) => `The previous secret is still accepted until ${time}.`,
  howToSignTitle: 'How to sign',
  howToSign: `Send the header ${FLOW_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>. Requests more than ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes away from the current time are refused. With Node.js and curl:`,
  exampleLabel: 'Signing example',
  turnedOn: 'Signature required. Copy the secret now.',
  rotated: 'New signing secret generated. Copy it now.',
  turnedOff: 'Signature no longer required',
  actionFailed: (reason: string) => `Error changing the signature setting: ${reason}`,
  loadFailed: (reason: string) => `Error loading the signature setting: ${reason}`,
  alreadyRequired: 'This flow already requires a signature. Use "Generate new secret" to replace its secret.',
  notRequired: 'This flow does not require a signature. Turn it on first.',
} as const;

/** What a sender is told when the flow requires a signature (401). */
export const signatureAnswerMessages = {
  missing: `This flow requires a signature: send the ${FLOW_SIGNATURE_HEADER} header (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">).`,
  malformed: `The ${FLOW_SIGNATURE_HEADER} header must be t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">.`,
  expired: `The ${FLOW_SIGNATURE_HEADER} timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes away from the current time; sign each request when sending it.`,
  mismatch: `The ${FLOW_SIGNATURE_HEADER} signature does not match this body.`,
} as const;

/** Why a request was refused, stored on the rejected event for the owner's event log. */
export const signatureRejectionReasons = {
  missing: `This flow requires a signature, but the request had no ${FLOW_SIGNATURE_HEADER} header. Sign the sender's requests with the flow's secret (Signature on the flow page), or turn the requirement off.`,
  malformed: `The ${FLOW_SIGNATURE_HEADER} header was not in the form t=<unix seconds>,v1=<hex HMAC-SHA256>. Check how the sender builds it (Signature on the flow page shows an example).`,
  expired: (seconds: number) =>
    `The signature was made ${Math.abs(seconds)} seconds ${seconds >= 0 ? 'before' : 'after'} the request arrived; more than ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes is refused so a captured request cannot be replayed. Sign each request when sending it, and check the sender's clock.`,
  mismatch: `The ${FLOW_SIGNATURE_HEADER} signature did not match the body. Check that the sender uses the flow's current secret (a replaced one works for 1 hour only) and signs "<t>.<raw body>" exactly as sent.`,
  unreadable: "The flow's signing secret could not be decrypted (the credentials key was changed), so the signature could not be checked. Generate a new secret on the flow page.",
} as const;

/** The test console's note beside Copy as cURL when the flow requires a signature. */
export const curlSignatureNote = `This flow requires a signature. The cURL command cannot include the secret, so it is refused as it is: add the ${FLOW_SIGNATURE_HEADER} header as shown under Signature on the flow page.`;
export const curlSignatureComment = `# This flow requires a signature: add -H '${FLOW_SIGNATURE_HEADER}: t=…,v1=…' (see Signature on the flow page), or the request is refused.`;

/**
 * A shell example that signs a body with Node.js and sends it with curl. It reads the
 * secret from FLOWSMITH_SECRET, so the secret is never part of what the page shows.
 */
export function signingExample(webhookUrl: string): string {
  const quotedUrl = `'${webhookUrl.replaceAll("'", `'\\''`)}'`;
  return [
    `BODY='{"event_id":"evt_123","event_type":"checkout_abandoned","properties":{"customer":{"email":"shopper@example.com"}}}'`,
    `SIG=$(node -e 'const t=Math.floor(Date.now()/1e3);console.log("t="+t+",v1="+require("crypto").createHmac("sha256",process.env.FLOWSMITH_SECRET).update(t+"."+process.argv[1]).digest("hex"))' "$BODY")`,
    `curl -X POST ${quotedUrl} -H 'Content-Type: application/json' -H "${FLOW_SIGNATURE_HEADER}: $SIG" --data-raw "$BODY"`,
  ].join('\n');
}
