/**
 * Every user-facing text that both the browser and the server produce, worded exactly
 * as docs/product/specification.md §5 and §8 give them. One place, so that a server-side
 * validation error reads the same as the browser's.
 */
export const validationMessages = {
  fullNameMin: 'Full name must be at least 2 characters',
  emailInvalid: 'Please enter a valid email address',
  passwordMin: 'Password must be at least 8 characters',
  passwordNumber: 'Password must contain at least one number',
  passwordSpecial: 'Password must contain at least one special character',
  passwordsDontMatch: "Passwords don't match",
  passwordRequired: 'Password is required',
  emailOrPhoneRequired: 'You must provide either an email or phone number and a password',
} as const;

export const authMessages = {
  lockout: 'Too many failed login attempts. Please try again in 1 minute.',
  invalidVerificationLink: 'Invalid verification link. Please request a new one.',
  verificationFailed: 'Verification failed. Please try again.',
  verificationUnexpected: 'An unexpected error occurred.',
  verificationProblem: 'There was a problem verifying your email. The link may have expired or is invalid.',
  signUpFallback: 'An error occurred during sign up',
  signInFallback: 'An error occurred during sign in',
  signOutFallback: 'An error occurred during sign out',
  passwordResetFallback: 'An error occurred during password reset',
  passwordUpdateFallback: 'An error occurred while updating password',
  invalidCredentials: 'Invalid email or password',
  emailNotVerified: 'Please confirm your email address first. We have sent you a new confirmation link.',
  invalidResetLink: 'This password reset link is invalid or has expired. Please request a new one.',
  registrationVerify: 'Registration successful! Please check your email for verification.',
  registrationLogin: 'Registration successful! You can now log in.',
  loginSuccess: 'Login successful!',
  loggedOut: 'You have been logged out',
  resetSent: 'Password reset instructions sent to your email',
  passwordUpdated: 'Password updated successfully',
  notSignedIn: 'You are not signed in',
} as const;

export const requestMessages = {
  overloaded: 'Flowsmith is very busy right now. Please try again in a few seconds.',
  metricsUnauthorized: 'Send the metrics token as a bearer token to read the metrics.',
  malformedJson: 'The request body is not valid JSON.',
  bodyTooLarge: 'The request body is too large.',
  unsupportedMediaType: 'Send the request body as application/json.',
  crossSite: 'Cross-site request refused.',
  notFound: 'Not found.',
  internal: 'An unexpected error occurred',
  rateLimited: 'Rate limit exceeded',
  /** The browser got no answer at all (offline, server down). */
  unreachable: 'Could not reach Flowsmith. Check your connection and try again.',
  /** Shown while a page waits out a rate limit or a busy server before asking again. */
  busyRetrying: (seconds: number) => `Busy — trying again in ${seconds} s…`,
  busyRetryingSoon: 'Busy — trying again in a few seconds…',
  invalidInput: 'Some fields are invalid.',
  invalidField: (field: string) =>
    field === 'body' ? 'The request is missing what it should contain. Reload the page and try again.' : `“${field}” is missing or not valid. Check it and try again.`,
  databaseUnavailable: 'The service is briefly unavailable. Please try again in a few seconds.',
  tooDeeplyNested: 'The request body is nested too deeply.',
  tooManyMembers: 'The request body has too many fields.',
  controlCharacters: 'The request address contains characters that are not allowed.',
  malformedAddress: 'The request address is not valid.',
  unreadableValue: 'A value in the request cannot be stored (an invalid character, number or date).',
} as const;

/** What the live console shows in place of an event it cannot show in full. */
export const streamMessages = {
  payloadTruncated: (shown: number, total: number) => `(The payload is too large or too deeply nested to show here: its first ${shown} of ${total} characters follow.)`,
  changeUnreadable: 'This event could not be shown here; open it in the event log.',
} as const;
