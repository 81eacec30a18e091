import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';
import { KLAVIYO_REVISION } from './klaviyo-profiles.ts';

const accountsSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string(), type: z.literal('account') })) });

/**
 * The key check of INTEGRATIONS.md: `GET /api/accounts` costs nothing but is limited to
 * 1/s and 15/min per account, so callers cache a positive answer. Resolves when Klaviyo
 * accepts the key; throws ServiceError otherwise (400/401 → unauthorized, 403 →
 * forbidden, no answer, 429 or 5xx → unreachable).
 */
export async function checkKlaviyoKey(baseUrl: string, apiKey: string, signal: AbortSignal): Promise<void> {
  const request = {
    url: `${baseUrl}/api/accounts`,
    headers: { authorization: `Klaviyo-API-Key ${apiKey}`, revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json' },
    signal,
  };
  await callService('klaviyo', request, async (answer) => {
    // Klaviyo answers an unknown key with 401 or 400 (INTEGRATIONS.md leaves it open).
    if (answer.status === 400) throw new ServiceError('klaviyo', 'unauthorized', 'the API key was refused', { status: 400 });
    if (!answer.ok) throw answer.error();
    const parsed = accountsSchema.safeParse(await answer.json());
    if (!parsed.success) throw new ServiceError('klaviyo', 'invalid_response', 'its answer could not be read (Klaviyo may be having trouble); try again in a minute', { status: answer.status });
  });
}
