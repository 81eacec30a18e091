/**
 * The flows' user-facing texts, worded as SPEC.md sections 2, 5 and 8 give them; the
 * ones SPEC.md does not have (property rules, placeholders, the wait) are ours.
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
  nameRequired: 'Name is required',
  klaviyoPropertyRequired: 'Klaviyo property is required',
  promptTemplateRequired: 'Prompt template is required',
  atLeastOneAssistant: 'A flow needs at least 1 AI assistant',
  tooManyAssistants: (max: number) => `A flow can have at most ${max} AI assistants`,
  nameTooLong: (max: number) => `Name must be at most ${max} characters`,
  klaviyoPropertyTooLong: (max: number) => `Klaviyo property must be at most ${max} characters`,
  klaviyoPropertyDollar: 'Klaviyo property must not start with $ (Klaviyo reserves those names)',
  klaviyoPropertyCharacters: 'Klaviyo property may use only letters, digits, spaces, underscores (_), dashes (-) and dots (.)',
  klaviyoPropertyDuplicate: (property: string) => `Another assistant of this flow already writes the Klaviyo property "${property}"`,
  promptTemplateTooLong: (max: number) => `Prompt template must be at most ${max} characters`,
  unknownPlaceholders: (unknown: string[], known: readonly string[]) =>
    `${unknown.length === 1 ? 'Unknown placeholder' : 'Unknown placeholders'} ${unknown.join(', ')}. Use one of: ${known.join(', ')}`,
  modelInvalid: 'Model must be a model name such as gpt-5-mini (letters, digits, dots, dashes, underscores, colons)',
  instructionsTooLong: (max: number) => `Instructions must be at most ${max} characters`,
  waitWholeNumber: 'Wait must be a whole number',
  waitRange: 'Wait must be between 0 minutes and 7 days',
  waitNotApplicable: 'Post purchase flows generate content straight away and have no wait',
  klaviyoEventNameTooLong: (max: number) => `Klaviyo event name must be at most ${max} characters`,
  klaviyoEventNameCharacters: 'Klaviyo event name must not contain line breaks or control characters',
} as const;
