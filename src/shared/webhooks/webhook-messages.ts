/**
 * The Webhook Test Console's and the handler page's words: docs/product/specification.md
 * §2 and §8 as written, plus ours for what it does not have (dry run, the stream, the
 * status check).
 */
export const webhookConsoleMessages = {
  webhookFailed: 'Webhook failed',
  sendError: (error: string | null | undefined) => `Error sending webhook: ${error || 'Unknown error'}`,
  sendFailedInline: (error: string) => `Failed to send test webhook: ${error}`,
  sendException: 'Failed to send test webhook',
  invalidJson: 'Invalid JSON payload. Please check your syntax.',
  invalidWebhookUrl: 'Invalid webhook URL',
  urlCopyFailed: 'Failed to copy webhook URL',
  curlCopyFailed: 'Failed to copy cURL command',
  received: 'Webhook received successfully',
  sending: 'Sending test webhook...',
  sent: 'Test webhook sent successfully',
  curlCopied: 'cURL command copied to clipboard',
  listening: 'Webhook listener is now active. Send data to your webhook URL to see it here.',
  stopped: 'Webhook listener stopped',
  cleared: 'Webhook data cleared',
  urlCopied: 'Webhook URL copied to clipboard',
  noWebhookUrl: 'No webhook URL configured. Please configure a webhook URL first.',
  statusListening: 'Listening for webhook events...',
  statusInactive: 'Webhook listener inactive',
  emptyInactive: 'Click "Start Listening" to begin monitoring webhook events',
  emptyListening: 'Waiting for webhook events...',
  entryReceived: 'Webhook received',
  entryFailed: 'Webhook failed',
  productionNote:
    'In production, Flowsmith keeps every event your webhook URL receives in its database before answering the sender, retries failed AI and Klaviyo steps with backoff, and logs each step in the event log, where failed events can be replayed. Senders should still retry when they get no 2xx answer.',
  dryRunLabel: 'Dry run: generate the texts without writing to Klaviyo',
  curlInvalidHint: '# The test payload is not valid JSON. Fix the JSON first, then copy the cURL command again.',
  connectionLost: 'The live connection was interrupted; reconnecting…',
  freshIdentityLabel: 'Give each send a new event_id and timestamp',
  duplicate:
    'Not processed again: Flowsmith already has an event with this event_id and keeps only the first. Change the event_id, or tick "Give each send a new event_id and timestamp", to send a new test event.',
  resultsHeading: 'Test Results',
} as const;

/** Stored on a dry-run test event that ended after generation (event log and console). */
export const dryRunOutcome = 'Dry run: the texts were generated and not written to Klaviyo.';

export const webhookHandlerMessages = {
  processing: 'Processing Webhook',
  processed: 'Webhook Processed',
  error: 'Webhook Error',
  errorLine: (message: string) => `Error: ${message}`,
  active: 'This webhook URL is active. Send events to it with POST.',
  inactive: 'This webhook URL exists, but its flow is turned off: events sent to it are kept and not processed.',
  notFound: 'There is no flow at this webhook URL.',
} as const;
