/**
 * What the callback tells the page it returns to, in the query: `?connected=shopify` (or
 * klaviyo), or `?connection_error=<code>&service=<service>`. Only a code travels, so
 * nothing a stranger puts in an address becomes text on the page.
 * - `denied`: the owner declined on the service's consent page;
 * - `scopes_missing`: fewer scopes were granted than Flowsmith needs (the status names them);
 * - `taken`: the shop is connected to another Flowsmith account;
 * - `failed`: the service could not be reached or refused the exchange; try again.
 */
export const connectionErrorCodes = ['denied', 'scopes_missing', 'taken', 'failed'] as const;
export type ConnectionErrorCode = (typeof connectionErrorCodes)[number];
export const connectedServices = ['shopify', 'klaviyo'] as const;
export type ConnectedService = (typeof connectedServices)[number];
