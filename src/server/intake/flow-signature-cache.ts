import type { Queryable } from '../database/database.ts';
import { LRUCache } from 'lru-cache';
import { cacheLifetime, type Clock } from '../platform/clock.ts';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import { loadFlowSigningSecrets, type FlowSigningSecrets } from '../flows/flow-signature-queries.ts';
import { FLOW_SIGNATURE_HEADER_NAME, verifyFlowSignature, type FlowSignatureCheck } from './flow-signature.ts';

/**
 * The flows' signing secrets of generic senders, kept for a few seconds per process like
 * the Shopify secrets (signing-secret-cache.ts): every generic request reads them, and
 * reading means a database round trip and a decryption. A request refused on cached
 * secrets is checked again against fresh ones, so a secret just generated, or a
 * requirement just turned off, is never held against a sender. Changes made in this
 * process drop the flow's entry at once; one made in another process counts here within
 * TTL_MS (only "just turned on" can be late: unsigned requests pass for up to 5 s).
 */
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;


export class FlowSignatureCache {
  private readonly entries: LRUCache<string, Promise<FlowSigningSecrets>>;
  private readonly load: (flowId: string) => Promise<FlowSigningSecrets>;
  private readonly clock: Clock;

  constructor(load: (flowId: string) => Promise<FlowSigningSecrets>, clock: Clock) {
    this.load = load;
    this.clock = clock;
    this.entries = new LRUCache({ max: MAX_ENTRIES, ...cacheLifetime(clock, TTL_MS) });
  }

  /** Whether a request to `flowId` with this body and `X-Flowsmith-Signature` header may be stored. */
  async check(flowId: string, body: Buffer, header: string | undefined): Promise<FlowSignatureCheck> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(flowId);
    if (cached) {
      const outcome = checkAgainst(await cached, body, header, now);
      if (outcome === 'valid' || outcome === 'not_required') return outcome;
    }
    return checkAgainst(await this.refresh(flowId), body, header, now);
  }

  /** After the owner changed the flow's signature setting in this process. */
  invalidate(flowId: string): void {
    this.entries.delete(flowId);
  }

  private refresh(flowId: string): Promise<FlowSigningSecrets> {
    const secrets = this.load(flowId);
    this.entries.set(flowId, secrets);
    secrets.catch(() => this.entries.delete(flowId));
    return secrets;
  }
}

function checkAgainst(state: FlowSigningSecrets, body: Buffer, header: string | undefined, nowMs: number): FlowSignatureCheck {
  if (!state.required) return 'not_required';
  const secrets = state.secrets.filter((entry) => entry.validUntil === null || entry.validUntil.getTime() > nowMs).map((entry) => entry.secret);
  const outcome = verifyFlowSignature(body, header, secrets, Math.floor(nowMs / 1000));
  // A secret that cannot be decrypted is the owner's to fix; say so rather than "mismatch".
  if (outcome === 'mismatch' && state.unreadable) return 'unreadable';
  return outcome;
}

/**
 * The app's one cache, made once in app.ts and handed to both the intake and the flow
 * routes that change the secrets (they are separate plugins, and the intake reads through
 * a pool of its own), so a change invalidates the receiver's entry at once.
 */
export function createFlowSignatureCache(db: Queryable, cipher: CredentialCipher, clock: Clock): FlowSignatureCache {
  return new FlowSignatureCache((flowId) => loadFlowSigningSecrets(db, cipher, flowId), clock);
}

export function signatureHeaderOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers[FLOW_SIGNATURE_HEADER_NAME];
  return Array.isArray(value) ? value[0] : value;
}
