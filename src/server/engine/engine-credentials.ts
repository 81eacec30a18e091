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
}

export type CredentialsLoader = (db: Queryable, userId: string) => Promise<EngineCredentials | null>;
