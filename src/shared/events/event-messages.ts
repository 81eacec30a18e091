import { flowTypeDetails, type FlowType } from '../flows/flow-types.ts';

/** What each flow writes content for, when its events come from Shopify or the pixel. */
const contentTopics: Record<FlowType, string> = {
  browser_abandonment: 'product views from the browsing pixel',
  abandoned_cart: 'carts/create and carts/update',
  abandoned_checkout: 'checkouts/create and checkouts/update',
  post_purchase: 'orders/create and orders/paid',
};

/**
 * What the webhook endpoint answers and what the event log says about each event. The
 * screens (docs/product/specification.md) have no words for the server side of webhooks,
 * so these are ours:
 * each says what happened and, where the owner can do something, what.
 */
export const webhookMessages = {
  malformedJson: 'The request body is not valid JSON.',
  emptyBody: 'The request body is empty; send the event as JSON.',
  notAnObject: 'The request body must be a JSON object.',
  bodyTooLarge: 'The request body is larger than 1 MB.',
  unsupportedMediaType: 'Send the event as application/json (or text/plain holding JSON).',
  badSignature: 'The X-Shopify-Hmac-Sha256 signature does not match this body.',
  shopifyUnsigned: 'A request with X-Shopify- headers must be signed by Shopify (X-Shopify-Hmac-Sha256).',
  shopifyTopicMissing: 'A Shopify webhook must name its topic in the X-Shopify-Topic header.',
  tooDeep: (levels: number) => `The request body is nested more than ${levels} levels deep.`,
  tooManyMembers: (members: number) => `The request body holds more than ${members.toLocaleString('en-US')} values.`,
  unavailable: 'The event could not be stored right now. Please retry.',
  pixelBodyTooLarge: 'A pixel event must be smaller than 32 KB.',
  notPixelEvent: 'The body is not an event of the Flowsmith browsing pixel.',
  pixelRateLimited: 'Too many pixel events from this address. Please retry later.',
  pixelAddressRetired:
    'This pixel address is no longer in use. Copy the pixel code from the Browser Abandonment flow page in Flowsmith and paste it into Shopify (Settings → Customer events) in place of the old code.',
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
  shopifyUnsigned:
    'The request has Shopify headers (X-Shopify-…) but no Shopify signature (X-Shopify-Hmac-Sha256). Shopify signs every webhook, so it was not accepted: whatever sent it is not Shopify, or something on the way removed the signature.',
  shopifyTopicMissing: 'The Shopify signature matched, but the request has no X-Shopify-Topic header, so it is not known what kind of event it is.',
  tooDeep: (levels: number) => `The body is JSON nested more than ${levels} levels deep, deeper than any event.`,
  tooManyMembers: (members: number) => `The body is JSON with more than ${members.toLocaleString('en-US')} values, more than any event holds.`,
  pixelBodyTooLarge: 'The pixel event was larger than 32 KB and was not stored.',
  notPixelEvent: (problems: string) => `The body is not an event of the Flowsmith browsing pixel (${problems}). Copy the pixel code from the flow page again.`,
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
  /** What a permanent OpenAI answer means for the owner, and what to do: trying again would fail the same way. */
  openAiRefused: {
    badRequest: "OpenAI refused the request as invalid, so it is not tried again. Check the assistant's model, prompt and instructions, then replay the event.",
    unauthorized: 'OpenAI refused the API key, so nothing is tried again until it changes. Enter a valid key in API settings, then replay the event.',
    forbidden:
      "OpenAI refused access with this key (its project, organisation or region may not be allowed this model), so it is not tried again. Check the key's permissions at OpenAI, then replay the event.",
    notFound: (model: string) =>
      `OpenAI says the model "${model}" does not exist or this key may not use it, so it is not tried again. Pick another model in API settings or on the assistant, then replay the event.`,
    tooLarge: "OpenAI refused the request as too large, so it is not tried again. Shorten the assistant's instructions or prompt, then replay the event.",
    quota: "Your OpenAI account has no quota left (insufficient_quota), so it is not tried again. Add credit or raise the limit in OpenAI's billing settings, then replay the event.",
    notUnderstood: 'Flowsmith does not understand this answer of OpenAI, so its text is not used. Replay the event to try again.',
  },
  answerCutOff: (assistant: string, reason: string) =>
    reason === 'max_output_tokens'
      ? `OpenAI's answer for "${assistant}" was cut off at its output limit (incomplete: max_output_tokens), so the partial text is not delivered. Ask for a shorter text in the prompt, or pick a model that reasons less, then replay the event.`
      : reason === 'content_filter'
        ? `OpenAI's content filter stopped the answer for "${assistant}" before it was complete (incomplete: content_filter), so the partial text is not delivered. Change the prompt or instructions, then replay the event.`
        : `OpenAI's answer for "${assistant}" stopped before it was complete (incomplete: ${reason}), so the partial text is not delivered. Replay the event to try again.`,
  storeRefused: (detail: string, recheckMinutes: number) =>
    `The store refuses Flowsmith (${detail}), so it is not asked again for each event: the event waits until the store is reconnected in API Settings or answers the check made every ${recheckMinutes} minutes.`,
  checkoutCompleted: 'The checkout was completed, so there is nothing to recover.',
  checkoutDeleted: 'Shopify deleted this checkout, so there is nothing to recover.',
  orderPlaced: 'The shopper placed an order before the wait ended, so no abandonment message is sent.',
  superseded: 'A newer update of this checkout arrived; that one is processed instead.',
  cartSuperseded: 'A newer update of this cart arrived; that one is processed instead.',
  viewedAnother: 'The shopper viewed another product later; the latest view is followed up instead.',
  arrivedOutOfOrder: 'This update arrived after a newer one of the same checkout or cart (Shopify does not keep their order); the newer one counts.',
  checkoutStarted: 'The shopper went on to checkout before the wait ended; the Abandoned Checkout flow follows up instead.',
  addedToCart: 'The shopper added a product to the cart before the wait ended; the Abandoned Cart flow follows up instead.',
  cartWithoutIdentity:
    'No shopper is known for this cart: Shopify carts carry no email, and the browsing pixel has not seen a logged-in shopper with this cart. The cart is recorded but cannot reach a profile.',
  guestView: 'The shopper was not logged in, so the view cannot reach a Klaviyo profile.',
  unknownPixelShopper:
    'Klaviyo has no profile with this email. Browsing-pixel events only update shoppers Klaviyo already knows, because anyone can send them; a customer synced from your store is known.',
  orderFollowedUp: 'This order was already followed up by this flow (orders/create and orders/paid of one order count once).',
  signalOnly: (topic: string, flowType: FlowType) =>
    `The ${flowTypeDetails[flowType].title} flow writes content for ${contentTopics[flowType]} only; this ${topic} event was used to end pending abandonment messages of the shopper.`,
  processingFailed: 'Processing stopped unexpectedly. Replay the event to try again.',
  pixelWithoutProduct: 'The browsing pixel named no product, so there is nothing to write about.',
  unknownShopifyProduct: (productId: string) =>
    `Your Shopify store has no product with the id "${productId}", so nothing is written about it. Browsing-pixel events take product details only from your store.`,
  shopNotConnected:
    'Your Shopify store is not connected: browsing-pixel events take product details only from your store. Save the Shopify credentials in API settings (Connect store), then replay the event.',
  shopperCooldown: (hours: number) =>
    `This shopper already got content from this flow within the last ${hours} ${hours === 1 ? 'hour' : 'hours'} (the flow's limit per shopper), so nothing was generated.`,
  dailyCapReached: (cap: number) =>
    `The flow reached its limit of ${cap} generated ${cap === 1 ? 'event' : 'events'} for today (UTC), so nothing was generated. Raise the limit in the flow's settings, then replay the event.`,
  retrying: (problem: string, nextTryAt: Date, nextTry: number, tries: number) =>
    `${problem} Trying again at ${nextTryAt.toISOString().slice(0, 16).replace('T', ' ')} UTC (try ${nextTry} of ${tries}).`,
  triesUsedUp: (problem: string, tries: number) => `${problem} (gave up after ${tries} tries; replay the event to try again)`,
  retryTooLate: (problem: string) => `${problem} (the service asked to wait longer than Flowsmith waits; replay the event to try again)`,
  rateLimitWait: (service: string, until: Date) => `Waiting for ${service}'s rate limit until ${until.toISOString().slice(0, 19).replace('T', ' ')} UTC.`,
  budgetWait: (budget: number, until: Date) =>
    `The flow spent its daily budget of $${budget.toFixed(2)} on OpenAI today (UTC); the event waits until ${until.toISOString().slice(0, 16).replace('T', ' ')} UTC. Raise the budget in the flow's settings to go on sooner.`,
  budgetSkipped: (budget: number) =>
    `The flow spent its daily budget of $${budget.toFixed(2)} on OpenAI today (UTC), so nothing was generated. Raise the budget in the flow's settings, then replay the event.`,
} as const;

export const eventLogMessages = {
  replayed: 'The event was queued again',
  replayNotAllowed: 'Only failed or delivered events can be replayed.',
  eventNotFound: 'This event does not exist.',
  loadFailed: 'Failed to load events',
  noEvents: 'No events yet. Send one to the webhook URL to see it here.',
  noMatchingEvents: 'No events with this status.',
} as const;
