import type { Clock } from '../platform/clock.ts';

/**
 * The owners' Shopify signing secrets, kept for a few seconds per process. Reading them
 * means decrypting the owner's credentials, which under a webhook burst costs more than
 * the rest of the request; a shop sends its bursts to one owner. A signature that does not
 * verify against a cached entry is checked once more against freshly read secrets, so a
 * secret the owner has just saved is never refused for being newer than the cache.
 */
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

export class SigningSecretCache {
  private readonly entries = new Map<string, { secrets: Promise<string[]>; expiresAt: number }>();
  private readonly load: (userId: string) => Promise<string[]>;
  private readonly clock: Clock;

  constructor(load: (userId: string) => Promise<string[]>, clock: Clock) {
    this.load = load;
    this.clock = clock;
  }

  /** Whether `verify` accepts one of the owner's secrets. */
  async verify(userId: string, verify: (secrets: string[]) => boolean): Promise<{ valid: boolean; secrets: string[] }> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(userId);
    if (cached && cached.expiresAt > now) {
      const secrets = await cached.secrets;
      if (verify(secrets)) return { valid: true, secrets };
    }
    const secrets = await this.refresh(userId, now);
    return { valid: verify(secrets), secrets };
  }

  private refresh(userId: string, now: number): Promise<string[]> {
    const secrets = this.load(userId);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(userId, { secrets, expiresAt: now + TTL_MS });
    secrets.catch(() => this.entries.delete(userId));
    return secrets;
  }
}
