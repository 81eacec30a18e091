import { z } from 'zod';
import { accountDeletionMessages } from './account-deletion.ts';

/** DELETE /api/account: the password again, and the tick that confirms it. */
export const deleteAccountSchema = z.object({
  password: z.string({ error: accountDeletionMessages.passwordRequired }).min(1, accountDeletionMessages.passwordRequired).max(1024, accountDeletionMessages.wrongPassword),
  confirm: z.literal(true, { error: accountDeletionMessages.confirmRequired }),
});
export type DeleteAccountRequest = z.infer<typeof deleteAccountSchema>;
