import { z } from 'zod';
import { IntegrationError, errorForStatus, readJson, requestService } from '../integration-error.ts';
import { KLAVIYO_REVISION } from './klaviyo-profiles.ts';

const accountsSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string(), type: z.literal('account') })) });

/**
 * The key check of INTEGRATIONS.md: `GET /api/accounts` costs nothing but is limited to
 * 1/s and 15/min per account, so callers cache a positive answer. Resolves when Klaviyo
 * accepts the key; throws IntegrationError otherwise (400/401 → unauthorized, 403 →
 * forbidden, no answer, 429 or 5xx → unreachable).
 */
export async function checkKlaviyoKey(baseUrl: string, apiKey: string, signal: AbortSignal): Promise<void> {
  const response = await requestService(
    'klaviyo',
    `${baseUrl}/api/accounts`,
    {
      headers: {
        authorization: `Klaviyo-API-Key ${apiKey}`,
        revision: KLAVIYO_REVISION,
        accept: 'application/vnd.api+json',
      },
    },
    signal,
  );
  // Klaviyo answers an unknown key with 401 or 400 (INTEGRATIONS.md leaves it open).
  if (response.status === 400) throw new IntegrationError('klaviyo', 'unauthorized', 'the API key was refused', { status: 400 });
  if (!response.ok) throw errorForStatus('klaviyo', response);
  const parsed = accountsSchema.safeParse(await readJson('klaviyo', response));
  if (!parsed.success) throw new IntegrationError('klaviyo', 'invalid_response', 'the accounts answer did not have the expected shape', { status: response.status });
}
