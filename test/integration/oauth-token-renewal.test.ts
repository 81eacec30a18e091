import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/test-database.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { createCredentialCipher } from '../../src/server/platform/credential-cipher.ts';
import {
  ConnectionUnavailable,
  createTokenRenewal,
  RenewalRefused,
  tokenContext,
  type RenewedTokens,
} from '../../src/server/connections/token-renewal.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';
import pg from 'pg';
import type { Database, Queryable } from '../../src/server/database/database.ts';

/**
 * The renewal of an OAuth connection's access token (docs/decisions/0048-connect-by-oauth.md):
 * once across processes (two renewals on two pools stand for two processes on one database), a
 * lost answer recovered with the refresh token still stored, and a refusal for good kept
 * with the connection. The token endpoint is a counted function here; the HTTP of each
 * service is tested against its stand-in in oauth-shopify.test.ts and oauth-klaviyo.test.ts.
 */
let database: Database;
const cipher = createCredentialCipher(randomBytes(32));
const clock = new ManualClock();
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.close();
});

beforeEach(async () => {
  userId = randomUUID();
  await database.pool.query('INSERT INTO users (id, full_name, email) VALUES ($1, $2, $3)', [userId, 'Renewing Owner', `${userId}@example.com`]);
  await storeTokens({ access: 'access-1', refresh: 'refresh-1', expiresInMs: 2 * 60_000 });
});

async function storeTokens(tokens: { access: string; refresh: string; expiresInMs: number }): Promise<void> {
  await database.pool.query(
    `INSERT INTO klaviyo_connections (user_id, account_id, account_name, scopes, status, access_token, access_token_expires_at, refresh_token, connected_at, updated_at)
     VALUES ($1, 'ACCOUNT1', 'Acme', 'profiles:write', 'connected', $2, $3, $4, $5, $5)
     ON CONFLICT (user_id) DO UPDATE SET access_token = EXCLUDED.access_token, access_token_expires_at = EXCLUDED.access_token_expires_at, refresh_token = EXCLUDED.refresh_token`,
    [
      userId,
      cipher.encrypt(tokens.access, tokenContext('klaviyo_connections', 'access_token', userId)),
      new Date(clock.now().getTime() + tokens.expiresInMs),
      cipher.encrypt(tokens.refresh, tokenContext('klaviyo_connections', 'refresh_token', userId)),
      clock.now(),
    ],
  );
}

async function storedRow() {
  const { rows } = await database.pool.query<{ status: string; refresh_token: string | null; access_token: string | null; problem: string | null; renewed_at: Date | null }>(
    'SELECT status, refresh_token, access_token, problem, renewed_at FROM klaviyo_connections WHERE user_id = $1',
    [userId],
  );
  const row = rows[0]!;
  return { ...row, refresh: row.refresh_token ? cipher.decrypt(row.refresh_token, tokenContext('klaviyo_connections', 'refresh_token', userId)) : null };
}

/** A token endpoint that rotates the refresh token at each use and counts the calls. */
function tokenEndpoint(behaviour: (refreshToken: string, call: number) => Promise<RenewedTokens> | RenewedTokens) {
  const calls: string[] = [];
  const refused: string[] = [];
  return {
    calls,
    refused,
    /** A renewal on `db`: the app's pool, or another pool standing for another process's. */
    renewal: (db: Queryable = database.pool) =>
      createTokenRenewal({
        db,
        cipher,
        clock,
        table: 'klaviyo_connections',
        service: 'klaviyo',
        notConnected: 'Klaviyo is not connected.',
        async renew(_userId, refreshToken) {
          calls.push(refreshToken);
          return behaviour(refreshToken, calls.length);
        },
        async onRefused(_userId, problem) {
          refused.push(problem);
        },
      }),
  };
}

const renewed = (call: number): RenewedTokens => ({
  accessToken: `access-${call + 1}`,
  accessTokenExpiresAt: new Date(clock.now().getTime() + 60 * 60_000),
  refreshToken: `refresh-${call + 1}`,
  refreshTokenExpiresAt: null,
  scopes: null,
});

describe('renewing an OAuth access token', () => {
  it('renews once when two processes find the token near its expiry at the same time', async () => {
    const endpoint = tokenEndpoint(async (_refresh, call) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return renewed(call);
    });
    // The other process has its own pool: its own connections to the database, as a second process would.
    const otherProcessPool = new pg.Pool({ ...database.clientConfig, max: 2 });
    try {
      const [first, second] = [endpoint.renewal(), endpoint.renewal(otherProcessPool)];
      const tokens = await Promise.all([first.accessToken(userId), second.accessToken(userId), first.accessToken(userId), second.accessToken(userId)]);
      expect(endpoint.calls).toEqual(['refresh-1']);
      expect(tokens).toEqual(['access-2', 'access-2', 'access-2', 'access-2']);
    } finally {
      await otherProcessPool.end();
    }
    const row = await storedRow();
    expect(row.refresh).toBe('refresh-2');
    expect(row.renewed_at).not.toBeNull();
  });

  it('uses the stored token while it is valid for more than five minutes, and renews a token the service refused', async () => {
    await storeTokens({ access: 'access-1', refresh: 'refresh-1', expiresInMs: 50 * 60_000 });
    const endpoint = tokenEndpoint((_refresh, call) => renewed(call));
    const renewal = endpoint.renewal();
    expect(await renewal.accessToken(userId)).toBe('access-1');
    expect(endpoint.calls).toEqual([]);
    expect(await renewal.accessToken(userId, { refused: 'access-1' })).toBe('access-2');
    // A second process told of the same refusal finds the new token instead of renewing again.
    expect(await endpoint.renewal().accessToken(userId, { refused: 'access-1' })).toBe('access-2');
    expect(endpoint.calls).toEqual(['refresh-1']);
  });

  it('keeps the refresh token when the answer is lost, and renews with it on the next try', async () => {
    const endpoint = tokenEndpoint((_refresh, call) => {
      // The service rotated the token, but its answer never arrived.
      if (call === 1) throw new ServiceError('klaviyo', 'network', 'the connection was reset before the answer');
      return renewed(call);
    });
    const renewal = endpoint.renewal();
    await expect(renewal.accessToken(userId)).rejects.toMatchObject({ code: 'network' });
    expect((await storedRow()).refresh).toBe('refresh-1');
    expect(await renewal.accessToken(userId)).toBe('access-3');
    expect(endpoint.calls).toEqual(['refresh-1', 'refresh-1']);
    expect((await storedRow()).refresh).toBe('refresh-3');
  });

  it('tells the owner once and drops the tokens when the renewal is refused for good', async () => {
    const endpoint = tokenEndpoint(() => {
      throw new RenewalRefused('Klaviyo refused to renew (invalid_grant)');
    });
    const renewal = endpoint.renewal();
    const failure = await renewal.accessToken(userId).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionUnavailable);
    // Retryable: the event waits for the owner to reconnect instead of failing.
    expect((failure as ConnectionUnavailable).retryable).toBe(true);
    const row = await storedRow();
    expect(row).toMatchObject({ status: 'renewal_refused', access_token: null, refresh_token: null, problem: 'Klaviyo refused to renew (invalid_grant)' });
    expect(endpoint.refused).toEqual(['Klaviyo refused to renew (invalid_grant)']);
    await expect(renewal.accessToken(userId)).rejects.toBeInstanceOf(ConnectionUnavailable);
    expect(endpoint.calls).toHaveLength(1);
  });

  it('waits for another process that holds the renewal, instead of renewing beside it', async () => {
    const slow = tokenEndpoint(async (_refresh, call) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return renewed(call);
    });
    const other = tokenEndpoint((_refresh, call) => renewed(call + 10));
    const started = slow.renewal().accessToken(userId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waited = await other.renewal().accessToken(userId);
    expect(await started).toBe('access-2');
    expect(waited).toBe('access-2');
    expect(other.calls).toEqual([]);
  });
});
