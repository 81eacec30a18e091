import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { deleteAccountSchema } from '../../shared/auth/account-deletion-schemas.ts';

/** The account deletion form's values: the tick is a boolean until the checks require it ticked. */
export interface DeleteAccountForm {
  password: string;
  confirm: boolean;
}

/** The account deletion form's checks: the shared schema, in a chunk of its own (see delete-account-card.tsx). */
export const deleteAccountResolver: Resolver<DeleteAccountForm> = zodResolver(deleteAccountSchema) as never;
