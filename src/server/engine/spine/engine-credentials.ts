import type { Queryable } from '../../database/database.ts';

/**
 * What the engine needs of an owner's saved credentials. The credentials feature stores
 * and decrypts them; the app wires its loader in (app.ts), so the engine never sees the
 * cipher and tests can run the engine on the real loader.
 */
export interface EngineCredentials {
  /** The private API key, or with `klaviyoOAuth` the connection's current access token. */
  klaviyoApiKey: string;
  /**
   * Set when Klaviyo is connected by OAuth (docs/decisions/0048-connect-by-oauth.md): calls
   * carry the token as Bearer, and a token Klaviyo refuses is renewed before the next try.
   */
  klaviyoOAuth?: KlaviyoOAuthAccess;
  /**
   * Why the owner's services cannot be used now, when a connection made by OAuth is gone
   * (the app uninstalled from the shop, a renewal refused for good, Klaviyo disconnected):
   * the event then waits, nothing is written or delivered, and it goes on once reconnected.
   */
  connectionProblem?: { service: 'shopify' | 'klaviyo'; detail: string };
  openaiApiKey: string;
  /** The owner's default model (their setup credential); an assistant's own model wins. */
  openaiModel: string;
  /** Shopify webhook signing secrets: the current one, and during a change the previous one. */
  shopifySigningSecrets: string[];
  /**
   * Set for an event of the sandbox (docs/decisions/0026-sandbox.md): the services it goes
   * to instead of the configured ones, and the sample shop it reads products from. Such an
   * event is never put in a bulk batch and never shares a text with a real one.
   */
  sandbox?: SandboxServices;
}

export interface SandboxServices {
  /** Who writes the texts: the sample writer, or OpenAI with the owner's key. */
  writer: 'sample' | 'openai';
  /** The sample writer, or the configured OpenAI when the owner gave a key. */
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  shop: { domain: string; shopUrl: string; accessToken: string };
}

/**
 * The credentials for an owner's event received at `receivedAt` (which services it goes
 * to depends on when it came: an event of the sandbox stays one); without it, for now.
 */
export type CredentialsLoader = (db: Queryable, userId: string, receivedAt?: Date) => Promise<EngineCredentials | null>;

/**
 * What Klaviyo's rate limits count by: the account. A private key stands for its account;
 * an OAuth connection's tokens change every hour, so its account id is used instead.
 */
export function klaviyoLimitKey(credentials: Pick<EngineCredentials, 'klaviyoApiKey' | 'klaviyoOAuth'>): string {
  return credentials.klaviyoOAuth ? `oauth:${credentials.klaviyoOAuth.accountId}` : credentials.klaviyoApiKey;
}

/** An OAuth connection's access, asked for right before each Klaviyo call so the token is fresh. */
export interface KlaviyoOAuthAccess {
  accountId: string;
  /** A valid access token; throws a retryable ServiceError while Klaviyo is not connected (the event waits). */
  accessToken(signal?: AbortSignal): Promise<string>;
  /** Klaviyo refused this token: the next accessToken() renews it. */
  tokenRefused(token: string): Promise<void>;
}

/** How to call Klaviyo for these credentials now: the private key, or the connection's current token as Bearer. */
export async function klaviyoAuthOf(credentials: Pick<EngineCredentials, 'klaviyoApiKey' | 'klaviyoOAuth'>, signal?: AbortSignal): Promise<{ apiKey: string; bearer?: { tokenRefused(token: string): Promise<void> } }> {
  const oauth = credentials.klaviyoOAuth;
  if (!oauth) return { apiKey: credentials.klaviyoApiKey };
  return { apiKey: await oauth.accessToken(signal), bearer: { tokenRefused: (token) => oauth.tokenRefused(token) } };
}
