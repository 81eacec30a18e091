import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../database/database.ts';

/** The sandbox's own tables (migration 017): its accounts, periods, profiles and Klaviyo events. */
export interface SandboxAccount {
  userId: string;
  accessToken: string;
  shopSigningSecret: string;
  /** Encrypted, as the saved credentials are. */
  encryptedOpenaiApiKey: string | null;
}

interface AccountRow {
  user_id: string;
  access_token: string;
  shop_signing_secret: string;
  openai_api_key: string | null;
}

function toAccount(row: AccountRow): SandboxAccount {
  return { userId: row.user_id, accessToken: row.access_token, shopSigningSecret: row.shop_signing_secret, encryptedOpenaiApiKey: row.openai_api_key };
}

/** The owner's sandbox account, made the first time it is asked for. */
export async function ensureSandboxAccount(db: Queryable, userId: string): Promise<SandboxAccount> {
  await db.query(
    `INSERT INTO sandbox_accounts (user_id, access_token, shop_signing_secret) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING`,
    [userId, `sbx_${randomBytes(32).toString('base64url')}`, randomBytes(32).toString('base64url')],
  );
  return (await findSandboxAccount(db, userId))!;
}

export async function findSandboxAccount(db: Queryable, userId: string): Promise<SandboxAccount | null> {
  const { rows } = await db.query<AccountRow>('SELECT user_id, access_token, shop_signing_secret, openai_api_key FROM sandbox_accounts WHERE user_id = $1', [userId]);
  return rows[0] ? toAccount(rows[0]) : null;
}

/** The owner a sandbox service's caller names with its token; null for a token nobody has. */
export async function findSandboxAccountByToken(db: Queryable, accessToken: string): Promise<SandboxAccount | null> {
  const { rows } = await db.query<AccountRow>('SELECT user_id, access_token, shop_signing_secret, openai_api_key FROM sandbox_accounts WHERE access_token = $1', [accessToken]);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function saveSandboxOpenaiKey(db: Queryable, userId: string, encryptedKey: string | null): Promise<void> {
  await db.query('UPDATE sandbox_accounts SET openai_api_key = $2 WHERE user_id = $1', [userId, encryptedKey]);
}

/** Opens a sandbox period at `now` unless one is open. */
export async function startSandboxPeriod(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO sandbox_periods (user_id, started_at) SELECT $1, $2
      WHERE NOT EXISTS (SELECT 1 FROM sandbox_periods WHERE user_id = $1 AND ended_at IS NULL)`,
    [userId, now],
  );
}

/**
 * Closes the open period. It ends no earlier than just after the owner's latest event,
 * so an event stored a moment ago by a process whose clock runs a little ahead still
 * counts as a sandbox event. True when a period was open.
 */
export async function endSandboxPeriod(db: Queryable, userId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE sandbox_periods
        SET ended_at = GREATEST($2::timestamptz, (SELECT max(received_at) + interval '1 millisecond' FROM events WHERE user_id = $1))
      WHERE user_id = $1 AND ended_at IS NULL`,
    [userId, now],
  );
  return (rowCount ?? 0) > 0;
}

/** Whether the owner's events received at `at` belong to the sandbox. */
export async function isInSandboxPeriod(db: Queryable, userId: string, at: Date): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM sandbox_periods WHERE user_id = $1 AND started_at <= $2 AND (ended_at IS NULL OR ended_at > $2)) AS found`,
    [userId, at],
  );
  return rows[0]?.found === true;
}

/** The owner's sandbox periods, oldest first (the event log marks the events received in them). */
export async function listSandboxPeriods(db: Queryable, userId: string): Promise<Array<{ startedAt: Date; endedAt: Date | null }>> {
  const { rows } = await db.query<{ started_at: Date; ended_at: Date | null }>('SELECT started_at, ended_at FROM sandbox_periods WHERE user_id = $1 ORDER BY started_at', [userId]);
  return rows.map((row) => ({ startedAt: row.started_at, endedAt: row.ended_at }));
}

export async function hasOpenSandboxPeriod(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>('SELECT EXISTS (SELECT 1 FROM sandbox_periods WHERE user_id = $1 AND ended_at IS NULL) AS found', [userId]);
  return rows[0]?.found === true;
}

export interface SandboxProfileRecord {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  properties: Record<string, unknown>;
  updatedAt: Date;
}

interface ProfileRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  properties: Record<string, unknown>;
  updated_at: Date;
}

function toProfile(row: ProfileRow): SandboxProfileRecord {
  return { id: row.id, email: row.email, firstName: row.first_name, lastName: row.last_name, properties: row.properties, updatedAt: row.updated_at };
}

const profileColumns = 'id, email, first_name, last_name, properties, updated_at';

/**
 * Klaviyo's profile import: creates the profile by email or updates it; names are kept
 * when absent, properties are merged (a null property clears it). `created` as 201/200.
 */
export async function importSandboxProfile(
  db: Queryable,
  userId: string,
  profile: { email: string; firstName: string | null; lastName: string | null; properties: Record<string, unknown> },
  now: Date,
): Promise<{ profile: SandboxProfileRecord; created: boolean }> {
  const { rows } = await db.query<ProfileRow & { created: boolean }>(
    `INSERT INTO sandbox_profiles (id, user_id, email, first_name, last_name, properties, created_at, updated_at)
     VALUES ($1, $2, lower($3), $4, $5, jsonb_strip_nulls($6::jsonb), $7, $7)
     ON CONFLICT (user_id, email) DO UPDATE
        SET first_name = COALESCE(EXCLUDED.first_name, sandbox_profiles.first_name),
            last_name = COALESCE(EXCLUDED.last_name, sandbox_profiles.last_name),
            properties = jsonb_strip_nulls(sandbox_profiles.properties || $6::jsonb),
            updated_at = $7
     RETURNING ${profileColumns}, (xmax = 0) AS created`,
    [`01SBX${randomUUID().replaceAll('-', '').slice(0, 21).toUpperCase()}`, userId, profile.email, profile.firstName, profile.lastName, JSON.stringify(profile.properties), now],
  );
  const row = rows[0]!;
  return { profile: toProfile(row), created: row.created };
}

export async function findSandboxProfilesByEmails(db: Queryable, userId: string, emails: string[]): Promise<SandboxProfileRecord[]> {
  const { rows } = await db.query<ProfileRow>(`SELECT ${profileColumns} FROM sandbox_profiles WHERE user_id = $1 AND email = ANY($2::text[])`, [
    userId,
    emails.map((email) => email.toLowerCase()),
  ]);
  return rows.map(toProfile);
}

/** The owner's sandbox profiles, most recently written first. */
export async function listSandboxProfiles(db: Queryable, userId: string): Promise<SandboxProfileRecord[]> {
  const { rows } = await db.query<ProfileRow>(`SELECT ${profileColumns} FROM sandbox_profiles WHERE user_id = $1 ORDER BY updated_at DESC, email LIMIT 500`, [userId]);
  return rows.map(toProfile);
}

/** Klaviyo's event create: kept once per unique_id; its profile properties are imported too. */
export async function recordSandboxKlaviyoEvent(
  db: Queryable,
  userId: string,
  event: { uniqueId: string; metric: string; email: string; properties: Record<string, unknown> },
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO sandbox_klaviyo_events (user_id, unique_id, metric, email, properties, created_at) VALUES ($1, $2, $3, lower($4), $5::jsonb, $6)
     ON CONFLICT (user_id, unique_id) DO NOTHING`,
    [userId, event.uniqueId, event.metric, event.email, JSON.stringify(event.properties), now],
  );
}

/**
 * A shopper's sandbox profile and Klaviyo events, for a privacy request (src/server/privacy):
 * an owner may have tried the sandbox with a real person's address.
 */
export async function findSandboxShopperData(db: Queryable, userId: string, email: string): Promise<{ profiles: unknown[]; events: unknown[] }> {
  const [profiles, events] = await Promise.all([
    db.query(`SELECT email, first_name, last_name, properties, created_at, updated_at FROM sandbox_profiles WHERE user_id = $1 AND email = lower($2)`, [userId, email]),
    db.query(`SELECT metric, email, properties, created_at FROM sandbox_klaviyo_events WHERE user_id = $1 AND email = lower($2)`, [userId, email]),
  ]);
  return { profiles: profiles.rows, events: events.rows };
}

/** Erases what findSandboxShopperData finds; returns the rows deleted. */
export async function eraseSandboxShopperData(db: Queryable, userId: string, email: string): Promise<number> {
  const profiles = await db.query(`DELETE FROM sandbox_profiles WHERE user_id = $1 AND email = lower($2)`, [userId, email]);
  const events = await db.query(`DELETE FROM sandbox_klaviyo_events WHERE user_id = $1 AND email = lower($2)`, [userId, email]);
  return (profiles.rowCount ?? 0) + (events.rowCount ?? 0);
}
