import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, type Queryable } from '../database/database.ts';
import { isRefused, refused, type Refused } from '../platform/http-errors.ts';
import type { Clock } from '../platform/clock.ts';
import { CredentialDecryptionError, type CredentialCipher } from '../platform/credential-cipher.ts';
import { maskSecret } from '../platform/credential-masking.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import { flowSignatureMessages } from '../../shared/flows/flow-signature-messages.ts';
import { notRequiredSignature, type FlowSignature } from '../../shared/flows/flow-signature-schemas.ts';
import { PREVIOUS_SECRET_VALID_MS, SIGNING_SECRET_PREFIX } from '../../shared/flows/flow-signing.ts';
import { findFlowForUser } from './flow-queries.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/**
 * The per-flow signing secrets of generic senders (docs/decisions/0012-generic-sender-signatures.md),
 * in `flow_signing_secrets`. Every change addresses the flow by owner and type, so no
 * owner can reach another's flow. Secrets are encrypted with the credentials cipher;
 * both columns of a flow share one context, so a rotation moves the current secret to
 * `previous_secret` without decrypting it.
 */

/** 256 random bits, base64url, with a prefix that tells a reader what it is. */
export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function encryptionContext(userId: string, flowId: string): string {
  return `flow_signing_secrets:${userId}:${flowId}`;
}

/** What the receiver checks a request against. */
export interface FlowSigningSecrets {
  required: boolean;
  /** Each secret with the time it stops being accepted (null: until it is replaced). */
  secrets: Array<{ secret: string; validUntil: Date | null }>;
  /** A stored secret the cipher could not decrypt (the credentials key changed without re-encrypting it). */
  unreadable: boolean;
}

interface SecretRow {
  user_id: string;
  secret: string;
  previous_secret: string | null;
  previous_valid_until: Date | null;
}

/** The flow's secrets, decrypted, for whoever sends to it; nothing is required when it has none. */
export async function loadFlowSigningSecrets(db: Queryable, cipher: CredentialCipher, flowId: string): Promise<FlowSigningSecrets> {
  const { rows } = await db.query<SecretRow>(
    'SELECT user_id, secret, previous_secret, previous_valid_until FROM flow_signing_secrets WHERE flow_id = $1',
    [flowId],
  );
  const row = rows[0];
  if (!row) return { required: false, secrets: [], unreadable: false };
  const context = encryptionContext(row.user_id, flowId);
  const secrets: FlowSigningSecrets['secrets'] = [];
  let unreadable = false;
  const stored: Array<[string | null, Date | null]> = [
    [row.secret, null],
    [row.previous_secret, row.previous_valid_until],
  ];
  for (const [encrypted, validUntil] of stored) {
    if (encrypted === null) continue;
    try {
      secrets.push({ secret: cipher.decrypt(encrypted, context), validUntil });
    } catch (error) {
      if (!(error instanceof CredentialDecryptionError)) throw error;
      unreadable = true;
    }
  }
  return { required: true, secrets, unreadable };
}

interface SignatureRow {
  secret_mask: string;
  created_at: Date;
  previous_valid_until: Date | null;
}

function toFlowSignature(row: SignatureRow | undefined, now: Date): FlowSignature {
  if (!row) return notRequiredSignature;
  const previousValid = row.previous_valid_until !== null && row.previous_valid_until.getTime() > now.getTime();
  return {
    required: true,
    maskedSecret: row.secret_mask,
    createdAt: row.created_at.toISOString(),
    previousSecretValidUntil: previousValid ? row.previous_valid_until!.toISOString() : null,
  };
}

const signatureColumns = 'secret_mask, created_at, previous_valid_until';

async function ownersFlowId(db: Queryable, userId: string, flowType: FlowType, forUpdate: boolean): Promise<string | Refused> {
  const flow = await findFlowForUser(db, userId, flowType, { forUpdate });
  if (!flow) return refused(apiErrorCodes.flow_not_found, flowMessages.flowNotFound);
  return flow.id;
}

/** The owner's view of one flow's signature: on or off, and the secret masked. */
export async function readFlowSignature(db: Queryable, clock: Clock, userId: string, flowType: FlowType): Promise<FlowSignature | Refused> {
  const flowId = await ownersFlowId(db, userId, flowType, false);
  if (isRefused(flowId)) return flowId;
  const { rows } = await db.query<SignatureRow>(`SELECT ${signatureColumns} FROM flow_signing_secrets WHERE flow_id = $1`, [flowId]);
  return toFlowSignature(rows[0], clock.now());
}

export interface CreatedSecret {
  flowId: string;
  signature: FlowSignature;
  /** In full: returned once to the owner, never stored unencrypted or logged. */
  secret: string;
}

/** What a new secret is encrypted with, and the clock its time is read from. */
export interface SecretKeeping {
  cipher: CredentialCipher;
  clock: Clock;
}

/** "Require a signature": a new secret for a flow that requires none yet (refused otherwise, so a double click keeps the first). */
export async function requireFlowSignature(pool: pg.Pool, keys: SecretKeeping, userId: string, flowType: FlowType): Promise<CreatedSecret | Refused> {
  const { cipher, clock } = keys;
  return inTransaction(pool, async (client) => {
    const flowId = await ownersFlowId(client, userId, flowType, true);
    if (isRefused(flowId)) return flowId;
    const secret = newSigningSecret();
    const now = clock.now();
    const { rows } = await client.query<SignatureRow>(
      `INSERT INTO flow_signing_secrets (flow_id, user_id, secret, secret_mask, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (flow_id) DO NOTHING
       RETURNING ${signatureColumns}`,
      [flowId, userId, cipher.encrypt(secret, encryptionContext(userId, flowId)), maskSecret(secret), now],
    );
    if (!rows[0]) return refused(apiErrorCodes.signature_already_required, flowSignatureMessages.alreadyRequired);
    return { flowId, signature: toFlowSignature(rows[0], now), secret };
  });
}

/**
 * "Generate new secret": the current secret becomes the previous one, accepted for one
 * more hour; a previous one still in its hour is dropped.
 */
export async function rotateFlowSigningSecret(pool: pg.Pool, keys: SecretKeeping, userId: string, flowType: FlowType): Promise<CreatedSecret | Refused> {
  const { cipher, clock } = keys;
  return inTransaction(pool, async (client) => {
    const flowId = await ownersFlowId(client, userId, flowType, true);
    if (isRefused(flowId)) return flowId;
    const secret = newSigningSecret();
    const now = clock.now();
    const { rows } = await client.query<SignatureRow>(
      `UPDATE flow_signing_secrets
          SET previous_secret = secret, previous_valid_until = $3,
              secret = $4, secret_mask = $5, created_at = $6
        WHERE flow_id = $1 AND user_id = $2
        RETURNING ${signatureColumns}`,
      [flowId, userId, new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS), cipher.encrypt(secret, encryptionContext(userId, flowId)), maskSecret(secret), now],
    );
    if (!rows[0]) return refused(apiErrorCodes.signature_not_required, flowSignatureMessages.notRequired);
    return { flowId, signature: toFlowSignature(rows[0], now), secret };
  });
}

/** "Turn off": removes the current and previous secrets; unsigned requests are accepted again. */
export async function removeFlowSignature(pool: pg.Pool, userId: string, flowType: FlowType): Promise<{ flowId: string; signature: FlowSignature } | Refused> {
  return inTransaction(pool, async (client) => {
    const flowId = await ownersFlowId(client, userId, flowType, true);
    if (isRefused(flowId)) return flowId;
    await client.query('DELETE FROM flow_signing_secrets WHERE flow_id = $1 AND user_id = $2', [flowId, userId]);
    return { flowId, signature: notRequiredSignature };
  });
}

/**
 * Re-encrypts every flow's signing secrets from one credentials key to another, on the
 * caller's transaction; for the credentials key rotation, which must move these too or
 * the flows' signatures can no longer be checked.
 */
export async function reencryptFlowSigningSecrets(client: pg.PoolClient, oldCipher: CredentialCipher, newCipher: CredentialCipher): Promise<number> {
  const { rows } = await client.query<{ flow_id: string; user_id: string; secret: string; previous_secret: string | null }>(
    'SELECT flow_id, user_id, secret, previous_secret FROM flow_signing_secrets ORDER BY flow_id FOR UPDATE',
  );
  let values = 0;
  for (const row of rows) {
    const context = encryptionContext(row.user_id, row.flow_id);
    const move = (stored: string | null) => {
      if (stored === null) return null;
      values += 1;
      return newCipher.encrypt(oldCipher.decrypt(stored, context), context);
    };
    await client.query('UPDATE flow_signing_secrets SET secret = $2, previous_secret = $3 WHERE flow_id = $1', [row.flow_id, move(row.secret), move(row.previous_secret)]);
  }
  return values;
}
