/** How long an owner's events, payloads and texts are kept (docs/decisions/0029-retention-and-account-deletion.md). */
export const DEFAULT_RETENTION_DAYS = 30;
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 365;
