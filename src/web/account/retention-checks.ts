import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import { retentionSettingsSchema, type RetentionSettings } from '../../shared/retention/retention-schemas.ts';

/** The retention form's checks: the shared schema, in a chunk of its own (see retention-card.tsx). */
export const retentionResolver: Resolver<RetentionSettings> = zodResolver(retentionSettingsSchema);
