import { PASSWORD_RESET_LINK_VALID_SECONDS, VERIFICATION_LINK_VALID_HOURS } from '../../shared/constants.ts';

/**
 * Texts that only the account pages show, beside the shared ones of
 * src/shared/messages.ts (worded as docs/product/specification.md §8; the server sends
 * them too).
 */
export const accountPageMessages = {
  verificationSent: `We've sent a verification link to your email address. Click the link in that email to activate your account. The link expires in ${VERIFICATION_LINK_VALID_HOURS} hours.`,
  resetLinkSent: (email: string) =>
    `If an account exists for ${email}, we've sent it a link to choose a new password. The link expires in ${PASSWORD_RESET_LINK_VALID_SECONDS / 3600} hour.`,
  missingResetToken: 'This page needs the link from your password reset email. Open the link from the email again, or request a new one.',
  idleSignedOut: 'You were signed out after 1 hour without activity. Please sign in again.',
} as const;
