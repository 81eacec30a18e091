import { z } from 'zod';
import { IntegrationError, errorForStatus, readJson, requestService } from '../integration-error.ts';

/**
 * The client-credentials grant of a Dev Dashboard app (INTEGRATIONS.md): the app's id
 * and secret buy an Admin API token that lives about 24 hours.
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
  const response = await requestService(
    'shopify',
    `${shopUrl}/admin/oauth/access_token`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }).toString(),
    },
    signal,
  );
  if (response.status >= 300 && response.status < 400) {
    throw new IntegrationError('shopify', 'not_found', 'no shop answers at this address', { status: response.status });
  }
  if (response.status === 400 || response.status === 401) {
    const body = oauthErrorSchema.safeParse(await readJson('shopify', response).catch(() => null));
    if (!body.success || body.data.error === 'invalid_client' || response.status === 401) {
      throw new IntegrationError('shopify', 'invalid_client', 'the client id and secret were refused', { status: response.status });
    }
    throw new IntegrationError('shopify', 'bad_request', `the token request was refused (${body.data.error})`, { status: response.status });
  }
  if (!response.ok) throw errorForStatus('shopify', response);
  const token = tokenSchema.safeParse(await readJson('shopify', response));
  if (!token.success) throw new IntegrationError('shopify', 'invalid_response', 'the token answer did not have the expected shape', { status: response.status });
  return {
    accessToken: token.data.access_token,
    scope: token.data.scope,
    expiresAt: new Date(now.getTime() + token.data.expires_in * 1000),
  };
}
