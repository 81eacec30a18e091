import { LRUCache } from 'lru-cache';
import { cacheLifetime, type Clock } from '../platform/clock.ts';

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
  private readonly entries: LRUCache<string, Promise<string[]>>;
  private readonly load: (userId: string) => Promise<string[]>;

  constructor(load: (userId: string) => Promise<string[]>, clock: Clock) {
    this.load = load;
    this.entries = new LRUCache({ max: MAX_ENTRIES, ...cacheLifetime(clock, TTL_MS) });
  }

  /** Whether `verify` accepts one of the owner's secrets. */
  async verify(userId: string, verify: (secrets: string[]) => boolean): Promise<{ valid: boolean; secrets: string[] }> {
    const cached = this.entries.get(userId);
    if (cached) {
      const secrets = await cached;
      if (verify(secrets)) return { valid: true, secrets };
    }
    const secrets = await this.refresh(userId);
    return { valid: verify(secrets), secrets };
  }

  /** The promise is kept, not its result, so a burst shares one read; a failed read is not kept. */
  private refresh(userId: string): Promise<string[]> {
    const secrets = this.load(userId);
    this.entries.set(userId, secrets);
    secrets.catch(() => this.entries.delete(userId));
    return secrets;
  }
}
