import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';

/**
 * The client-credentials grant of a Dev Dashboard app (docs/product/service-contracts.md
 * §4): the app's id and secret buy an Admin API token that lives about 24 hours.
 */
export interface ObtainedShopifyToken {
  accessToken: string;
  scope: string;
  expiresAt: Date;
}

const tokenSchema = z.looseObject({
  access_token: z.string().min(1),
  scope: z.string().default(''),
  expires_in: z.number().positive(),
});
const oauthErrorSchema = z.looseObject({ error: z.string() });

export async function obtainClientCredentialsToken(
  shopUrl: string,
  credentials: { clientId: string; clientSecret: string },
  now: Date,
  signal: AbortSignal,
): Promise<ObtainedShopifyToken> {
  const request = {
    url: `${shopUrl}/admin/oauth/access_token`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }).toString(),
    signal,
    now: () => now,
  };
  return callService('shopify', request, async (answer) => {
    if (answer.redirected) throw answer.error('no shop answers at this address', 'not_found');
    if (answer.status === 400 || answer.status === 401) {
      const body = oauthErrorSchema.safeParse(await answer.json().catch(() => null));
      if (!body.success || body.data.error === 'invalid_client' || answer.status === 401) {
        throw new ServiceError('shopify', 'invalid_client', 'the client id and secret were refused', { status: answer.status });
      }
      throw new ServiceError('shopify', 'bad_request', `the token request was refused (${body.data.error})`, { status: answer.status });
    }
    if (!answer.ok) throw answer.error();
    const token = tokenSchema.safeParse(await answer.json());
    if (!token.success) throw new ServiceError('shopify', 'invalid_response', 'its answer to the access token request could not be read (Shopify may be having trouble); try again in a minute', { status: answer.status });
    return {
      accessToken: token.data.access_token,
      scope: token.data.scope,
      expiresAt: new Date(now.getTime() + token.data.expires_in * 1000),
    };
  });
}
