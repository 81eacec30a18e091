import type { FlowSection } from '../routes.ts';

/**
 * The flows' user-facing texts, worded as docs/product/specification.md §2, §5 and §8
 * give them; the ones it does not have (property rules, placeholders, the wait) are ours.
 */
export const flowMessages = {
  saved: 'Flow configuration saved successfully',
  updated: 'Flow configuration updated successfully',
  saveError: (reason: string) => `Error saving flow configuration: ${reason}`,
  loadError: (message: string) => `Error loading flow configurations: ${message}`,
  initializeError: (message: string) => `Error initializing flow configurations: ${message}`,
  updateError: (message: string) => `Error updating flow: ${message}`,
  loadFailed: 'Failed to load flow configurations',
  updateFailed: 'An error occurred while updating the flow',
  webhookUrlsNeedUpdate: 'Some webhook URLs need to be updated to the new format. This will be done automatically.',
  webhookUrlsUpdated: (count: number) => `Updated ${count} webhook URLs to the correct format`,
  webhookUrlRewritten: 'Updated webhook URL to use the new format',
  webhookUrlCopied: 'Webhook URL copied to clipboard',
  webhookUrlCopyFailed: 'Failed to copy webhook URL',
  webhookTesterOpened: 'Webhook tester opened. Click "Start Listening" to begin testing.',
  active: 'This flow is currently active and processing events',
  inactive: 'This flow is currently inactive',
  noWebhookUrl: 'No webhook URL generated yet',
  noAssistants: 'No AI assistants configured',
  webhookUrlHint: 'Use this URL in your store to send events to this flow.',
  flowNotFound: 'This flow does not exist.',
} as const;

export const flowValidationMessages = {
  recommendationIntentChoice: 'Recommendations must be "related" or "complementary"',
  recommendationCount: (max: number) => `Recommendations per event must be a whole number from 1 to ${max}`,
  recommendationPropertyTaken: (property: string) => `An assistant of this flow already writes the Klaviyo property "${property}": choose another one for the recommendations`,
  nameRequired: 'Name is required',
  klaviyoPropertyRequired: 'Klaviyo property is required',
  promptTemplateRequired: 'Prompt template is required',
  atLeastOneAssistant: 'A flow needs at least 1 AI assistant',
  tooManyAssistants: (max: number) => `A flow can have at most ${max} AI assistants`,
  nameTooLong: (max: number) => `Name must be at most ${max} characters`,
  klaviyoPropertyTooLong: (max: number) => `Klaviyo property must be at most ${max} characters`,
  klaviyoPropertyDollar: 'Klaviyo property must not start with $ (Klaviyo reserves those names)',
  klaviyoPropertyCharacters: 'Klaviyo property may use only letters, digits, spaces, underscores (_), dashes (-) and dots (.)',
  klaviyoPropertyReserved: (property: string) => `Klaviyo property "${property}" is where Flowsmith writes the shopper's experiment group: choose another name`,
  klaviyoPropertyDuplicate: (property: string) => `Another assistant of this flow already writes the Klaviyo property "${property}"`,
  promptTemplateTooLong: (max: number) => `Prompt template must be at most ${max} characters`,
  unknownPlaceholders: (unknown: string[], known: readonly string[]) =>
    `${unknown.length === 1 ? 'Unknown placeholder' : 'Unknown placeholders'} ${unknown.join(', ')}. Use one of: ${known.join(', ')}`,
  placeholdersNotFilled: (tokens: string[], flowTitle: string, offered: readonly string[]) =>
    `${tokens.join(', ')} ${tokens.length === 1 ? 'is' : 'are'} never filled for ${flowTitle} events, so the AI would get nothing there. Use one of: ${offered.join(', ')}`,
  modelInvalid: 'Model must be a model name such as gpt-5-mini (letters, digits, dots, dashes, underscores, colons)',
  instructionsTooLong: (max: number) => `Instructions must be at most ${max} characters`,
  waitWholeNumber: 'Wait must be a whole number',
  waitRange: 'Wait must be between 0 minutes and 7 days',
  waitNotApplicable: 'Post purchase flows generate content straight away and have no wait',
  klaviyoEventNameTooLong: (limit: number) => `Klaviyo event name is too long: Klaviyo accepts event names shorter than ${limit} characters`,
  klaviyoEventNameCharacters: 'Klaviyo event name must not contain line breaks or control characters',
  shopperCooldownWholeNumber: 'Hours between texts for one shopper must be a whole number',
  shopperCooldownRange: (max: number) => `Hours between texts for one shopper must be between 0 (no limit) and ${max}`,
  dailyGenerationCapWholeNumber: 'Events a day must be a whole number',
  dailyGenerationCapRange: (max: number) => `Events a day must be between 1 and ${max.toLocaleString('en-US')}`,
  reuseWindowWholeNumber: 'Hours to reuse a text must be a whole number',
  reuseWindowRange: (max: number) => `Hours to reuse a text must be between 0 (never) and ${max}`,
  dailyBudgetNumber: 'Daily budget must be an amount in dollars, such as 5 or 12.50',
  dailyBudgetRange: (max: number) => `Daily budget must be more than $0 and at most $${max.toLocaleString('en-US')}, or left blank for no budget`,
  overBudgetChoice: 'Choose what happens when the budget is spent: wait for the next day, or skip the event',
  graceChoice: 'Choose when the current URL stops working: at once, after 1 hour, after 24 hours or after 7 days',
} as const;

/** The rules a flow's written texts are checked against, and what their form says. */
export const textRuleMessages = {
  discountCodeRequired: 'A discount code cannot be blank',
  discountCodeTooLong: (max: number) => `A discount code must be at most ${max} characters`,
  discountCodeCharacters: 'A discount code may use only letters, digits, - and _',
  discountCodeRepeated: (code: string) => `The discount code ${code} is listed twice`,
  tooManyDiscountCodes: (max: number) => `At most ${max} discount codes`,
  bannedPhraseRequired: 'A banned word cannot be blank',
  bannedPhraseTooLong: (max: number) => `A banned word or phrase must be at most ${max} characters`,
  bannedPhraseCharacters: 'A banned word or phrase must be on one line',
  bannedPhrasePlaceholder: 'A banned word or phrase cannot contain { or }: placeholders are filled in before the check',
  bannedPhraseRepeated: (phrase: string) => `"${phrase}" is listed twice among the banned words`,
  tooManyBannedPhrases: (max: number) => `At most ${max} banned words and phrases`,
  languageChoice: "Choose the shopper's language or one of the listed languages",
  onFailedChecksChoice: 'Choose what is sent when a text fails its checks twice: the fallback text, or nothing',
  fallbackTooLong: (max: number) => `Fallback text must be at most ${max} characters`,
  fallbackLongerThanLimit: (limit: number) => `Fallback text must fit the text's own limit of ${limit} characters`,
  maxLengthRange: (max: number) => `Most characters must be a whole number between 1 and ${max}`,
  sectionTitle: 'Checks before delivery',
  sectionHint:
    'Every text is checked before it reaches a shopper: its prices, discount codes, links, products, length, language, your banned words, and OpenAI moderation. A text that fails is written again once, naming what was wrong; if it fails again, the fallback text goes out, or nothing.',
  discountCodesLabel: 'Discount codes texts may name',
  discountCodesHint: 'One per line. Any other code-like word in a text fails its check.',
  offersCouponLabel: "Texts may use a Klaviyo coupon tag ({% coupon_code '…' %})",
  bannedPhrasesLabel: 'Banned words and phrases',
  bannedPhrasesHint: 'One per line, matched as whole words in any case.',
  languageLabel: 'Language of the texts',
  languageShopper: "The shopper's language (from the event; not checked when the event gives none)",
  onFailedChecksLabel: 'When a text fails its checks twice',
  onFailedChecksFallback: "Send the assistant's fallback text (or nothing, when it has none)",
  onFailedChecksNothing: 'Send nothing for the event',
  fallbackLabel: 'Fallback text',
  fallbackHint: 'Sent instead of a text that failed its checks twice. It may use the same placeholders as the prompt.',
  maxLengthLabel: 'Most characters',
  maxLengthHint: (max: number) => `Longer texts fail their check. Blank means ${max.toLocaleString('en-US')}.`,
  autoApproveAfterRange: (max: number) => `Approve automatically after must be a whole number between 1 and ${max}, or blank for never`,
  requireApprovalLabel: 'Texts wait for my approval before they are sent',
  requireApprovalHint: 'Each event’s texts wait in the review list. A text not approved within 24 hours is not sent.',
  autoApproveAfterLabel: 'Approve automatically after this many approved in a row',
  autoApproveAfterHint: 'Once you have approved this many texts in a row without changing them, new texts are approved automatically. Leave blank to always review.',
} as const;

/**
 * What Flowsmith says when something it would send is over a limit the service it goes to
 * sets in its definition (docs/decisions/0045-limits-from-vendor-definitions.md): the
 * service's reason, in plain words, and what the owner can do.
 */
export const vendorLimitMessages = {
  klaviyoProfileWriteTooLarge: (bytes: number, limit: number) =>
    `the profile write with this event's texts would be ${bytes.toLocaleString('en-US')} bytes, and Klaviyo accepts at most ${limit.toLocaleString('en-US')} bytes (${Math.floor(limit / 1024)} KB) in one profile write, so it was not sent. Lower "Most characters" of the flow's assistants or give the flow fewer assistants, then replay the event.`,
  shopifyWebhookNeedsHttps: 'Shopify delivers webhooks only to https:// addresses. Set PUBLIC_URL to the https:// address your store can reach.',
} as const;

/** The limits on what a flow may cost (another part of the app enforces them per event). */
export const flowCapMessages = {
  shopperCooldownLabel: 'Hours between texts for one shopper',
  shopperCooldownHint: (max: number) =>
    `At most one text per shopper every N hours in this flow, so a shopper who keeps browsing is not written to again and again. 0 turns this limit off; at most ${max}.`,
  dailyGenerationCapLabel: 'Events a day',
  dailyGenerationCapHint: (max: number) =>
    `At most N events a day (UTC) get AI texts in this flow; the rest are skipped and listed with the reason. It bounds what a flood of events can cost. From 1 to ${max.toLocaleString('en-US')}.`,
  shopperCooldownOff: 'No limit per shopper.',
  shopperCooldown: (hours: number) => `At most one text per shopper every ${hours === 1 ? 'hour' : `${hours} hours`}.`,
  dailyGenerationCap: (cap: number) => `At most ${cap.toLocaleString('en-US')} ${cap === 1 ? 'event' : 'events'} a day get AI texts.`,
  useFlexTierLabel: 'Use the flex tier when this flow waits 15 minutes or more',
  useFlexTierHint: "OpenAI's flex tier costs about half and answers more slowly; if it is busy, the standard tier writes the text instead.",
  reuseWindowLabel: 'Hours to reuse a text that names no shopper',
  reuseWindowHint: (max: number) =>
    `A text whose prompt uses nothing of the shopper (no first name, no checkout link) is the same for everyone who saw the same products: it is reused for this many hours instead of paying for it again. 0 writes every text anew; at most ${max}.`,
  dailyBudgetLabel: 'Daily budget (USD)',
  dailyBudgetHint: 'What this flow may spend on OpenAI per day (UTC). Leave blank for no budget.',
  overBudgetLabel: 'When the budget is spent',
  overBudgetWait: 'Events wait for the next day',
  overBudgetSkip: 'Events are skipped',
  flexOn: 'Flex tier for waits of 15 minutes or more.',
  reuseOff: 'Every text written anew.',
  reuse: (hours: number) => `Texts that name no shopper are reused for ${hours === 1 ? '1 hour' : `${hours} hours`}.`,
  noBudget: 'No daily budget.',
  budget: (dollars: number, overBudget: 'wait' | 'skip') => `Daily budget $${dollars.toFixed(2)}; past it, events ${overBudget === 'wait' ? 'wait for the next day' : 'are skipped'}.`,
} as const;

/**
 * The flow URL is the secret that lets anyone send events (docs/product/product-rules.md
 * §4: a flow's URL is a secret and can be rotated); these texts say so by the URL and
 * word Rotate URL.
 */
export const webhookUrlRotationMessages = {
  secretNotice:
    'Anyone who has this URL can send events to this flow, and each event can use your OpenAI and Klaviyo accounts. Give it only to the services that send events (your store, Klaviyo, Zapier, your scripts), never put it in storefront code, and rotate it if it may have leaked. Requiring a signature (under Store) also refuses requests that have only the URL.',
  rotate: 'Rotate URL',
  rotateTitle: 'Rotate the webhook URL',
  rotateExplanation:
    'Rotating gives this flow a new URL. Senders that still use the current one are refused once it stops working, so update each of them to the new URL.',
  graceLegend: 'When should the current URL stop working?',
  confirm: 'Yes, rotate the URL',
  cancel: 'Cancel',
  rotated: 'New webhook URL created. Use it in every sender.',
  rotatedAtOnce: 'New webhook URL created. The previous URL no longer works.',
  rotateFailed: (reason: string) => `Error rotating the webhook URL: ${reason}`,
  previousValidUntil: (time: string) => `The previous URL still works until ${time}. Move every sender to the new URL before then.`,
  moveShopifySubscriptions:
    "Your store's Shopify webhooks for this flow still use the previous URL: press Connect store again to move them to the new one before the previous URL stops.",
} as const;

/** The form's section on recommendations from the owner's shop (docs/decisions/0050-recommendations-from-the-shop.md). */
export const recommendationMessages = {
  sectionTitle: 'Recommendations from your shop',
  sectionHint:
    "Products your Shopify shop recommends for the event's product, offered to the prompts as {recommendations}. They are asked of the shop only when a prompt uses {recommendations} or a profile property is named below.",
  intentLabel: 'Which recommendations',
  intentRelated: 'Related products — "You may also like"',
  intentComplementary: 'Complementary products — "Pair it with"',
  intentHint: "Complementary products exist only where you set them up in Shopify's Search & Discovery app.",
  countLabel: 'How many',
  countHint: (max: number) => `From 1 to ${max} products per event.`,
  propertyLabel: 'Klaviyo profile property for the list (optional)',
  propertyHint:
    'Blank: the list is offered to the prompts only. Named: it is also written to this profile property, with the title, url, image, price and currency of each product, and a Klaviyo template can loop over it.',
  loopTagLabel: 'Loop over the list in your Klaviyo email',
  /** What the event detail says of a list written to a profile property. */
  listSummary: (count: number) => (count === 0 ? 'No recommended products' : `${count} recommended ${count === 1 ? 'product' : 'products'}`),
} as const;

/** The flow page's sections (src/shared/routes.ts names them) and its first view. */
export const flowSectionMessages = {
  navLabel: 'Flow sections',
  overview: 'Overview',
  titles: {
    settings: 'Settings',
    assistants: 'Assistants',
    store: 'Store',
    preview: 'Preview',
    experiment: 'Experiment',
    results: 'Results',
    events: 'Events',
  },
  label: (section: FlowSection) =>
    ({
      settings: 'the flow settings',
      assistants: 'the assistants',
      store: 'the store connection',
      preview: 'Preview',
      experiment: 'the experiment',
      results: 'the results',
      events: 'the event log',
    })[section],
  consoleLabel: 'the Webhook Test Console',
  dayTitle: 'Last 24 hours',
  saveFirst: 'Save this flow’s settings first: its webhook URL is made then, and with it the store connection, the results and the event log.',
} as const;
