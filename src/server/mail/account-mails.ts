import type { OutgoingMail } from './mailer.ts';
import { VERIFICATION_LINK_VALID_HOURS } from '../../shared/constants.ts';

/**
 * The account mails. Links carry their token in the URL fragment, which browsers never
 * send to a server, so tokens stay out of access logs and Referer headers.
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function mailLayout(greeting: string, paragraphs: string[], link: { url: string; label: string }): Pick<OutgoingMail, 'text' | 'html'> {
  const text = [greeting, '', ...paragraphs.flatMap((p) => [p, '']), `${link.label}: ${link.url}`, '', 'Flowsmith'].join('\n');
  const html = `<p>${escapeHtml(greeting)}</p>${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p><p>Flowsmith</p>`;
  return { text, html };
}

export function verificationMail(to: string, fullName: string, publicUrl: string, token: string): OutgoingMail {
  const url = `${publicUrl}/auth/verify#access_token=${encodeURIComponent(token)}&type=signup`;
  return {
    to,
    subject: 'Confirm your email for Flowsmith',
    ...mailLayout(
      `Hello ${fullName},`,
      [`Please confirm your email address to finish creating your Flowsmith account. The link expires in ${VERIFICATION_LINK_VALID_HOURS} hours.`],
      { url, label: 'Confirm my email' },
    ),
  };
}

export function passwordResetMail(to: string, fullName: string, publicUrl: string, token: string): OutgoingMail {
  const url = `${publicUrl}/auth/reset-password#access_token=${encodeURIComponent(token)}&type=recovery`;
  return {
    to,
    subject: 'Reset your Flowsmith password',
    ...mailLayout(
      `Hello ${fullName},`,
      ['Someone asked to reset the password of your Flowsmith account. If it was you, choose a new password with the link below within one hour. If not, ignore this mail.'],
      { url, label: 'Choose a new password' },
    ),
  };
}

export function existingAccountMail(to: string, fullName: string, publicUrl: string): OutgoingMail {
  return {
    to,
    subject: 'You already have a Flowsmith account',
    ...mailLayout(
      `Hello ${fullName},`,
      ['Someone tried to create a Flowsmith account with this email address, which already has one. If it was you, sign in, or reset your password if you forgot it.'],
      { url: `${publicUrl}/auth/login`, label: 'Sign in' },
    ),
  };
}

/** After an account was deleted: says so, and what was not (texts already on Klaviyo profiles). */
export function accountDeletedMail(to: string, fullName: string, publicUrl: string): OutgoingMail {
  return {
    to,
    subject: 'Your Flowsmith account is deleted',
    ...mailLayout(
      `Hello ${fullName},`,
      [
        'Your Flowsmith account is deleted, with everything kept for it: your flows, service keys, events, the payloads your shop sent and the texts written for them.',
        'Texts already written to Klaviyo profiles stay in your Klaviyo account. If you did not delete your account, reply to this mail.',
      ],
      { url: `${publicUrl}/auth/register`, label: 'Create a new account' },
    ),
  };
}
