/** Business constants of docs/product/specification.md §9. */
export const LOGIN_LOCKOUT_ATTEMPTS = 5;
export const LOGIN_LOCKOUT_SECONDS = 60;
export const IDLE_SIGN_OUT_MS = 3_600_000;
export const SESSION_SECONDS_REMEMBERED = 2_592_000;
export const SESSION_SECONDS_DEFAULT = 86_400;
export const PASSWORD_MIN_LENGTH = 8;
export const FULL_NAME_MIN_LENGTH = 2;
export const VERIFICATION_REDIRECT_DELAY_MS = 3_000;
export const VERIFICATION_LINK_VALID_HOURS = 24;
export const PASSWORD_RESET_LINK_VALID_SECONDS = 3_600;
