/** The settings page's danger zone and the answers of DELETE /api/account. */
export const accountDeletionMessages = {
  sectionTitle: 'Delete account',
  sectionHelp:
    'Deletes your account and everything kept for it: flows, keys, events, payloads and texts. Texts already on Klaviyo profiles stay there. This cannot be undone.',
  passwordLabel: 'Your password',
  passwordRequired: 'Enter your password to delete your account.',
  confirmLabel: 'I understand that my account and all its data are deleted for good.',
  confirmRequired: 'Tick the box to confirm.',
  button: 'Delete account',
  wrongPassword: 'That password is not right. Nothing was deleted.',
  deleted: 'Your account and its data are deleted.',
  mailSubject: 'Your Flowsmith account is deleted',
} as const;
