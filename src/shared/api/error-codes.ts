/**
 * Every code an error answer of the API carries in its `error` field, with the HTTP status
 * it always comes with (null where the status depends on the case). The server may answer
 * only these (HttpError accepts nothing else) and the browser compares against the
 * constants below, so a code renamed here is renamed for both, and a code missing here
 * cannot be sent (docs/decisions/0037-http-contract.md).
 *
 * The webhook and pixel codes are what a sender outside sees: tests pin them, so they keep
 * their spelling (`bad_signature`, `too_deep`, `pixel_address_retired`, …).
 */
export const apiErrorStatuses = {
  // Any request
  validation: 400,
  invalid_value: 400,
  malformed_json: 400,
  malformed_address: 400,
  control_characters: 400,
  too_deep: 400,
  /** 400 for a webhook's body (the senders' contract), 413 for the API's own JSON. */
  too_many_members: null,
  body_too_large: 413,
  unsupported_media_type: 415,
  /** Any other 4xx the framework answers (a method it does not allow, a header it cannot read). */
  bad_request: null,
  cross_site: 403,
  not_found: 404,
  rate_limited: 429,
  overloaded: 503,
  database_unavailable: 503,
  internal: 500,
  unauthorized: 401,

  // Accounts
  not_signed_in: 401,
  wrong_email_or_password: 401,
  email_not_verified: 403,
  locked_out: 429,
  verification_failed: 400,
  invalid_reset_link: 400,
  /** A refusal of the authentication library, with the library's own status and message. */
  auth_refused: null,
  wrong_password: 401,

  // Service credentials, Shopify store, sandbox
  invalid_credentials: 400,
  service_unreachable: 503,
  credentials_missing: 409,
  not_in_sandbox: 409,
  no_sandbox: 409,
  shopify_failed: 502,
  not_public: 409,
  shopify_missing_scope: 409,
  shopify_not_configured: 409,
  /** The deployment offers no OAuth app for this service. */
  connection_not_offered: 404,
  /** The shop is connected to another Flowsmith account. */
  shop_taken: 409,

  // Flows and their events
  flow_not_found: 404,
  signature_already_required: 409,
  signature_not_required: 409,
  no_webhook_url: 409,
  not_replayable: 409,
  invalid_json: 400,

  // Webhooks, the pixel and Shopify's privacy webhooks: what a sender sees
  bad_signature: 401,
  signature_required: 401,
  signature_expired: 401,
  topic_missing: 400,
  unknown_topic: 400,
  empty_body: 400,
  not_an_object: 400,
  not_pixel_event: 400,
  invalid_body: 400,
  pixel_address_retired: 410,

  // Made by the browser itself, never sent by the server
  /** No answer at all (offline, server down): status 0. */
  network: null,
  /** An answer outside the contract (a proxy's page, an empty body). */
  http_error: null,
} as const satisfies Record<string, number | null>;

export type ApiErrorCode = keyof typeof apiErrorStatuses;

/** The codes only the browser makes up: the server never answers with them. */
type BrowserOnlyErrorCode = 'network' | 'http_error';

/** Every code the server may answer with. */
export type ServerErrorCode = Exclude<ApiErrorCode, BrowserOnlyErrorCode>;

/** Codes whose status is fixed: the table gives it, so no caller writes it again. */
export type FixedStatusErrorCode = {
  [Code in ServerErrorCode]: (typeof apiErrorStatuses)[Code] extends number ? Code : never;
}[ServerErrorCode];

/** Codes whose status depends on the case: the caller names it. */
export type VariableStatusErrorCode = Exclude<ServerErrorCode, FixedStatusErrorCode>;

/**
 * The codes by name, for comparisons and answers: `body.error === apiErrorCodes.locked_out`.
 * Spelled out through the table's keys so a code exists in one place only.
 */
export const apiErrorCodes = Object.fromEntries(Object.keys(apiErrorStatuses).map((code) => [code, code])) as {
  readonly [Code in ApiErrorCode]: Code;
};

/** Whether a string from an answer is one of the contract's codes (a proxy may send anything). */
export function isApiErrorCode(value: string): value is ApiErrorCode {
  return Object.hasOwn(apiErrorStatuses, value);
}
