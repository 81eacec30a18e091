/** Where an event is on its way, from received to delivered or given up, as the server records it and the event log shows it. */
export const eventStatuses = ['received', 'waiting', 'generating', 'delivering', 'delivered', 'skipped', 'failed', 'rejected'] as const;
export type EventStatus = (typeof eventStatuses)[number];

/** Statuses the owner can Replay: a failure to retry, or a delivery to repeat on purpose. */
export const replayableStatuses: readonly EventStatus[] = ['failed', 'delivered'];
