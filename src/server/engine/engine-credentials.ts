import type { Queryable } from '../database/database.ts';

/**
 * What the engine needs of an owner's saved credentials. The credentials feature stores
 * and decrypts them; the app wires its loader in (app.ts), so the engine never sees the
 * cipher and tests can run the engine on the real loader.
 */
export interface EngineCredentials {
  klaviyoApiKey: string;
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
