import type { Queryable } from '../database/database.ts';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import type { Clock } from '../platform/clock.ts';
import { ServiceError, type ServiceName } from '../integrations/service-error.ts';
import { claimRenewal, findStoredTokens, markRenewalRefused, releaseRenewal, storeRenewedTokens, type ConnectionTable, type StoredTokenRow } from './connection-token-queries.ts';

/**
 * Renewing an OAuth connection's access token once across every process
 * (docs/decisions/0048-connect-by-oauth.md). The token lives in its connection's row; a
 * process that finds it near its expiry (or refused by the service) takes the row's
 * renewal lease with one conditional UPDATE, and only the process that took it calls the
 * token endpoint. The others wait for the new token to appear. No transaction is held
 * open over the call: the embedded database serves one statement at a time.
 *
 * The refresh token stored is replaced only when the new one is stored with its access
 * token. A renewal whose answer is lost (timeout, broken connection) leaves the old one
 * in place, which the service still accepts until the new one is used.
 */
export type { ConnectionTable };

/** Renew this long before the access token expires. */
export const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
/** The renewal lease: longer than a token request may take (its timeout is 8 s). */
export const RENEWAL_LEASE_MS = 20_000;
const WAIT_STEP_MS = 100;

export interface RenewedTokens {
  accessToken: string;
  /** Null when the token does not expire. */
  accessTokenExpiresAt: Date | null;
  refreshToken: string;
  refreshTokenExpiresAt: Date | null;
  /** The scopes the service says the new token has, when it says. */
  scopes: string | null;
}

/** The service refused the refresh token for good (revoked, uninstalled, expired): the owner must connect again. */
export class RenewalRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenewalRefused';
  }
}

/** The connection is not usable now: none, uninstalled, or its renewal refused. */
export class ConnectionUnavailable extends ServiceError {
  readonly problem: string;
  constructor(service: ServiceName, problem: string) {
    // Retryable: the events wait for the owner to connect again, and go out then.
    super(service, 'unauthorized', problem, { kind: 'retryable' });
    this.problem = problem;
    this.name = 'ConnectionUnavailable';
  }
}

type TokenRow = StoredTokenRow;

export function tokenContext(table: ConnectionTable, column: 'access_token' | 'refresh_token', userId: string): string {
  return `${table}.${column}:${userId}`;
}

export interface TokenRenewal {
  /**
   * A valid access token of the owner's connection: the stored one, or a renewed one when
   * it is near its expiry or is `refused` (a token the service just answered 401 to).
   * Throws ConnectionUnavailable when there is no usable connection, and ServiceError when
   * the token endpoint could not be asked (the caller tries again later).
   */
  accessToken(userId: string, options?: { refused?: string; signal?: AbortSignal }): Promise<string>;
}

export function createTokenRenewal(deps: {
  db: Queryable;
  cipher: CredentialCipher;
  clock: Clock;
  table: ConnectionTable;
  service: ServiceName;
  /** Words for "no connection": what the owner should do. */
  notConnected: string;
  /** Calls the token endpoint with the refresh token; throws RenewalRefused when refused for good. */
  renew: (userId: string, refreshToken: string, signal: AbortSignal | undefined) => Promise<RenewedTokens>;
  /** Told once when a renewal is refused for good (the owner's condition). */
  onRefused: (userId: string, problem: string) => Promise<void>;
}): TokenRenewal {
  const { db, cipher, clock, table } = deps;
  const decrypt = (userId: string, column: 'access_token' | 'refresh_token', value: string) => cipher.decrypt(value, tokenContext(table, column, userId));
  const encrypt = (userId: string, column: 'access_token' | 'refresh_token', value: string) => cipher.encrypt(value, tokenContext(table, column, userId));
  // One renewal per owner per process; across processes the lease decides.
  const running = new Map<string, Promise<string>>();

  const read = (userId: string) => findStoredTokens(db, table, userId);

  const usable = (row: TokenRow, userId: string, refused: string | undefined): string | null => {
    if (!row.access_token) return null;
    const expiresAt = row.access_token_expires_at?.getTime() ?? Infinity;
    if (expiresAt - clock.now().getTime() <= RENEW_BEFORE_EXPIRY_MS) return null;
    const token = decrypt(userId, 'access_token', row.access_token);
    return token === refused ? null : token;
  };

  async function renewOnce(userId: string, seen: TokenRow, signal: AbortSignal | undefined): Promise<string | 'taken'> {
    const now = clock.now();
    const lease = new Date(now.getTime() + RENEWAL_LEASE_MS);
    // Taken only if no other process holds the lease and the token is still the one seen
    // (another process may have renewed since it was read).
    const claimed = await claimRenewal(db, table, { userId, until: lease, now, seenAccessToken: seen.access_token });
    if (!claimed) return 'taken';
    const refreshCipher = claimed.refreshToken;
    const release = () => releaseRenewal(db, table, userId, lease);
    if (!refreshCipher) {
      // A token that cannot be renewed (none was given): the owner must connect again.
      await release();
      await refuse(userId, deps.notConnected);
      throw new ConnectionUnavailable(deps.service, deps.notConnected);
    }
    let renewed: RenewedTokens;
    try {
      renewed = await deps.renew(userId, decrypt(userId, 'refresh_token', refreshCipher), signal);
    } catch (error) {
      if (error instanceof RenewalRefused) {
        await refuse(userId, error.message);
        throw new ConnectionUnavailable(deps.service, error.message);
      }
      await release();
      throw error;
    }
    // Not stored when the connection was uninstalled or disconnected meanwhile: the new
    // token is still good for this one call.
    await storeRenewedTokens(db, table, {
      userId,
      lease,
      accessToken: encrypt(userId, 'access_token', renewed.accessToken),
      accessTokenExpiresAt: renewed.accessTokenExpiresAt,
      refreshToken: encrypt(userId, 'refresh_token', renewed.refreshToken),
      refreshTokenExpiresAt: renewed.refreshTokenExpiresAt,
      scopes: renewed.scopes,
      at: clock.now(),
    });
    return renewed.accessToken;
  }

  async function refuse(userId: string, problem: string): Promise<void> {
    await markRenewalRefused(db, table, { userId, problem, at: clock.now() });
    await deps.onRefused(userId, problem);
  }

  async function obtain(userId: string, refused: string | undefined, signal: AbortSignal | undefined): Promise<string> {
    const deadline = clock.now().getTime() + RENEWAL_LEASE_MS + 5_000;
    for (;;) {
      const row = await read(userId);
      if (!row) throw new ConnectionUnavailable(deps.service, deps.notConnected);
      if (row.status !== 'connected') throw new ConnectionUnavailable(deps.service, row.problem ?? deps.notConnected);
      const token = usable(row, userId, refused);
      if (token) return token;
      const leased = row.renewing_until && row.renewing_until.getTime() > clock.now().getTime();
      if (!leased) {
        const outcome = await renewOnce(userId, row, signal);
        if (outcome !== 'taken') return outcome;
      }
      // Another process renews: its token appears in the row (or its lease runs out).
      if (clock.now().getTime() > deadline) throw new ServiceError(deps.service, 'timeout', 'the connection is being renewed by another process; trying again later');
      await clock.sleep(WAIT_STEP_MS, signal);
    }
  }

  return {
    accessToken(userId, options = {}) {
      const key = `${userId}\u0000${options.refused ?? ''}`;
      const pending = running.get(key);
      if (pending) return pending;
      const started = obtain(userId, options.refused, options.signal).finally(() => running.delete(key));
      running.set(key, started);
      return started;
    },
  };
}
