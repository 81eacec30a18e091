import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { signInSchema, type SignInInput } from '../../shared/auth/auth-schemas.ts';

/** The sign-in form's checks: the shared schema, in a chunk of its own (see login-page.tsx). */
export const signInResolver: Resolver<SignInInput> = zodResolver(signInSchema);
