import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { credentialsInputSchema, type Credentials, type CredentialsInput } from '../../shared/credentials/credential-schemas.ts';

/** The credentials form's checks: the shared schema, in a chunk of its own (see credentials-form.tsx). */
export const credentialsResolver: Resolver<CredentialsInput, unknown, Credentials> = zodResolver(credentialsInputSchema);
