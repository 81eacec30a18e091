/**
 * "Rotate URL" of a flow (docs/decisions/0015-rotating-flow-urls.md): the owner picks
 * how long the current URL keeps working beside the new one, from a fixed set, so an
 * old URL cannot be left working for ever by mistake. Apart from the request's schema
 * (webhook-url-rotation.ts): the flow page's first view offers these choices without zod.
 */
export const webhookUrlGraceOptions = [
  { minutes: 0, label: 'At once' },
  { minutes: 60, label: 'After 1 hour' },
  { minutes: 1_440, label: 'After 24 hours' },
  { minutes: 10_080, label: 'After 7 days' },
] as const;
export type WebhookUrlGraceMinutes = (typeof webhookUrlGraceOptions)[number]['minutes'];
