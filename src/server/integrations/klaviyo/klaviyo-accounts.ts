import { z } from 'zod';
import { klaviyoProbedScopes, type KlaviyoScope } from '../../../shared/credentials/klaviyo-scopes.ts';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';
import { KLAVIYO_REVISION } from './klaviyo-profiles.ts';

const collectionSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string(), type: z.string() })) });

/**
 * One cheap read per scope the check can see: Klaviyo answers 403 when the key lacks the
 * operation's scope (its definition: getAccounts accounts:read, getProfiles profiles:read,
 * getLists lists:read). One row each is enough; lists page at most 10.
 */
const probes: Record<(typeof klaviyoProbedScopes)[number], string> = {
  'accounts:read': '/api/accounts',
  'profiles:read': '/api/profiles?page%5Bsize%5D=1',
  'lists:read': '/api/lists?page%5Bsize%5D=1',
};

async function probe(baseUrl: string, apiKey: string, path: string, signal: AbortSignal): Promise<'allowed' | 'forbidden'> {
  const request = {
    url: `${baseUrl}${path}`,
    headers: { authorization: `Klaviyo-API-Key ${apiKey}`, revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json' },
    signal,
  };
  return callService('klaviyo', request, async (answer) => {
    // Klaviyo answers an unknown key with 401 or 400 (docs/product/service-contracts.md
    // §3 leaves it open).
    if (answer.status === 400) throw new ServiceError('klaviyo', 'unauthorized', 'the API key was refused', { status: 400 });
    if (answer.status === 403) return 'forbidden';
    if (!answer.ok) throw answer.error();
    const parsed = collectionSchema.safeParse(await answer.json());
    if (!parsed.success) throw new ServiceError('klaviyo', 'invalid_response', 'its answer could not be read (Klaviyo may be having trouble); try again in a minute', { status: answer.status });
    return 'allowed';
  });
}

/**
 * The key check of docs/product/service-contracts.md §3: `GET /api/accounts` (1/s and
 * 15/min per account, so callers cache a positive answer), with a profile and a list read
 * beside it, all at once. Resolves with the read scopes the key lacks (none: every probed
 * scope is there); throws ServiceError when the key is refused (400/401 → unauthorized)
 * or Klaviyo cannot be asked (no answer, 429 or 5xx → unreachable).
 */
export async function checkKlaviyoKey(baseUrl: string, apiKey: string, signal: AbortSignal): Promise<{ missingScopes: KlaviyoScope[] }> {
  const answers = await Promise.allSettled(klaviyoProbedScopes.map((scope) => probe(baseUrl, apiKey, probes[scope], signal)));
  // A refused key outweighs an unreachable probe: it is the verdict the owner can act on.
  const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
  const refusal = failures.find((failure) => failure instanceof ServiceError && failure.code === 'unauthorized');
  if (refusal ?? failures[0]) throw refusal ?? failures[0];
  return { missingScopes: klaviyoProbedScopes.filter((_, index) => answers[index]!.status === 'fulfilled' && (answers[index] as PromiseFulfilledResult<string>).value === 'forbidden') };
}
