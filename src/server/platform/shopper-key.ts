import { createHash } from 'node:crypto';

/**
 * The shopper as tables that must not keep their address know them (the generation
 * cooldowns, experiment assignments and credited orders): a stable digest of the
 * lower-cased email. It lives in the platform, which imports no feature, so the engine,
 * experiments, attribution and privacy each take it from here rather than from one another.
 */
export function shopperKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
}
