/*
 * How generic senders sign their requests (docs/decisions/0012-generic-sender-signatures.md):
 * the header, its replay window, and the form and lifetime of a flow's secret.
 */

export const FLOW_SIGNATURE_HEADER = 'X-Flowsmith-Signature';
/** A signed request older (or newer) than this, by the app's clock, is refused as a replay. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** How long the secret replaced by "Generate new secret" is still accepted (as Shopify does). */
export const PREVIOUS_SECRET_VALID_MS = 3_600_000;
export const SIGNING_SECRET_PREFIX = 'whsec_';
