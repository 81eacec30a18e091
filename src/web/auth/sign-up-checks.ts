import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { signUpSchema, type SignUp, type SignUpInput } from '../../shared/auth/auth-schemas.ts';

/** The sign-up form's checks: the shared schema, in a chunk of its own (see register-page.tsx). */
export const signUpResolver: Resolver<SignUpInput, unknown, SignUp> = zodResolver(signUpSchema);
