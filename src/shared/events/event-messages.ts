/**
 * What the webhook endpoint answers and what the event log says about each event. SPEC.md
 * has no words for the server side of webhooks (it was "not shown"), so these are ours:
 * each says what happened and, where the owner can do something, what.
 */
export const webhookMessages = {
  malformedJson: 'The request body is not valid JSON.',
  emptyBody: 'The request body is empty; send the event as JSON.',
  notAnObject: 'The request body must be a JSON object.',
  bodyTooLarge: 'The request body is larger than 1 MB.',
  unsupportedMediaType: 'Send the event as application/json (or text/plain holding JSON).',
  badSignature: 'The X-Shopify-Hmac-Sha256 signature does not match this body.',
  unavailable: 'The event could not be stored right now. Please retry.',
} as const;

/** Reasons stored on rejected events, shown in the owner's event log. */
export const rejectionReasons = {
  malformedJson: (detail: string) => `The body is not valid JSON (${detail}).`,
  emptyBody: 'The body was empty.',
  notAnObject: 'The body is JSON but not an object.',
  bodyTooLarge: 'The body was larger than 1 MB and was not stored.',
  unsupportedMediaType: (contentType: string) => `The content type "${contentType}" is not accepted; send application/json or text/plain.`,
  signatureMismatch:
    'The Shopify signature (X-Shopify-Hmac-Sha256) did not match. Check that the signing secret saved in API settings is the one this webhook is signed with.',
  noSigningSecret:
    'The event carries a Shopify signature (X-Shopify-Hmac-Sha256), but no Shopify signing secret is saved in API settings, so it could not be checked.',
  wrongFlowType: (sentTo: string, flowType: string) =>
    `The event was sent to the ${sentTo} address of this flow, which is a ${flowType} flow. Copy the webhook URL from the flow page again.`,
} as const;

/** Reasons stored on skipped and failed events. */
export const eventOutcomeMessages = {
  flowInactive: 'The flow was inactive when the event arrived.',
  flowSwitchedOff: 'The flow was switched off before the event was processed.',
  noEmail: 'The event has no shopper email, so there is no Klaviyo profile to write to.',
  noCredentials: 'No API credentials are saved. Save them in API settings, then replay the event.',
  noAssistants: 'The flow has no AI assistants.',
  invalidPayload: (problems: string) => `The event does not have the expected shape: ${problems}`,
  templateEmpty: (assistant: string, placeholders: string[]) =>
    placeholders.length > 0
      ? `The prompt of "${assistant}" is empty for this event: it uses ${placeholders.join(', ')}, which this event does not have.`
      : `The prompt of "${assistant}" is empty.`,
  noText: (assistant: string, detail: string) => `OpenAI answered "${assistant}" without any text${detail ? ` (${detail})` : ''}.`,
  generationFailed: (assistant: string, message: string) => `"${assistant}": ${message}`,
  checkoutCompleted: 'The checkout was completed, so there is nothing to recover.',
  checkoutDeleted: 'Shopify deleted this checkout, so there is nothing to recover.',
  orderPlaced: 'The shopper placed an order for this checkout before the wait ended.',
  superseded: 'A newer update of this checkout arrived; that one is processed instead.',
  cartWithoutIdentity: 'Shopify carts carry no shopper identity; the cart is recorded but cannot reach a profile.',
  processingFailed: 'Processing stopped unexpectedly. Replay the event to try again.',
} as const;

export const eventLogMessages = {
  replayed: 'The event was queued again',
  replayNotAllowed: 'Only failed or delivered events can be replayed.',
  eventNotFound: 'This event does not exist.',
  loadFailed: 'Failed to load events',
  noEvents: 'No events yet. Send one to the webhook URL to see it here.',
  noMatchingEvents: 'No events with this status.',
} as const;
