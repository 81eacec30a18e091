import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database/database.ts';
import type { PrivacyRequest, PrivacyTopic } from '../../shared/privacy/privacy-schemas.ts';

/** The privacy module's own tables: privacy_endpoints, privacy_requests, privacy_exports (migration 019). */

export async function ensurePrivacyEndpointKey(db: Queryable, userId: string): Promise<string> {
  const { rows } = await db.query<{ endpoint_key: string }>(
    `INSERT INTO privacy_endpoints (user_id) VALUES ($1)
     ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
     RETURNING endpoint_key`,
    [userId],
  );
  return rows[0]!.endpoint_key;
}

export async function findOwnerOfPrivacyKey(db: Queryable, key: string): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM privacy_endpoints WHERE endpoint_key = $1', [key]);
  return rows[0]?.user_id ?? null;
}

export interface NewPrivacyRequest {
  userId: string;
  topic: PrivacyTopic;
  shopDomain: string | null;
  shopperEmail: string | null;
  customerId: string | null;
  /** Shopify's `customer.phone`; cleared once the request is carried out. */
  shopperPhone?: string | null;
  /** `orders_to_redact` / `orders_requested`: Shopify order ids, as exact digit strings. */
  orderIds?: string[];
  webhookId: string | null;
  requestedAt: Date | null;
  receivedAt: Date;
}

/** Stores a request to be carried out; a repeated webhook delivery (same webhook id) is not stored again. */
export async function recordPrivacyRequest(db: Queryable, request: NewPrivacyRequest): Promise<{ id: string; duplicate: boolean }> {
  const id = `prv_${randomUUID().replaceAll('-', '')}`;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO privacy_requests (id, user_id, topic, shop_domain, shopper_email, customer_id, webhook_id, requested_at, received_at, status, shopper_phone, order_ids)
     VALUES ($1, $2, $3, $4, lower($5), $6, $7, $8, $9, 'received', $10, $11)
     ON CONFLICT (user_id, webhook_id) WHERE webhook_id IS NOT NULL DO NOTHING
     RETURNING id`,
    [id, request.userId, request.topic, request.shopDomain, request.shopperEmail, request.customerId, request.webhookId, request.requestedAt, request.receivedAt, request.shopperPhone ?? null, request.orderIds ?? []],
  );
  return rows[0] ? { id: rows[0].id, duplicate: false } : { id: '', duplicate: true };
}

/** A request done on the spot (the owner's own erasure), recorded for the audit list with the address masked. */
export async function recordDonePrivacyRequest(db: Queryable, request: NewPrivacyRequest, recordsAffected: number): Promise<void> {
  await db.query(
    `INSERT INTO privacy_requests (id, user_id, topic, shop_domain, shopper_email, customer_id, webhook_id, requested_at, received_at, status, done_at, records_affected, attempts)
     VALUES ($1, $2, $3, $4, ${maskedEmailSql('lower($5)')}, $6, NULL, $7, $7, 'done', $7, $8, 1)`,
    [`prv_${randomUUID().replaceAll('-', '')}`, request.userId, request.topic, request.shopDomain, request.shopperEmail, request.customerId, request.receivedAt, recordsAffected],
  );
}

export interface ClaimedPrivacyRequest {
  id: string;
  userId: string;
  topic: PrivacyTopic;
  shopDomain: string | null;
  shopperEmail: string | null;
  customerId: string | null;
  shopperPhone: string | null;
  orderIds: string[];
  attempts: number;
}

/**
 * Takes the oldest request no worker holds: one never started, or one whose worker's lease
 * ran out (it crashed or was stopped midway), which is then carried out again from the start.
 */
export async function claimPrivacyRequest(db: Queryable, now: Date, leaseMs: number): Promise<ClaimedPrivacyRequest | null> {
  const { rows } = await db.query<{
    id: string;
    user_id: string;
    topic: PrivacyTopic;
    shop_domain: string | null;
    shopper_email: string | null;
    customer_id: string | null;
    shopper_phone: string | null;
    order_ids: string[];
    attempts: number;
  }>(
    `UPDATE privacy_requests SET status = 'processing', attempts = attempts + 1, lease_until = $1::timestamptz + make_interval(secs => $2::double precision / 1000)
      WHERE id = (SELECT id FROM privacy_requests
                   WHERE status = 'received' OR (status = 'processing' AND lease_until < $1)
                   ORDER BY received_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, user_id, topic, shop_domain, shopper_email, customer_id, shopper_phone, order_ids, attempts`,
    [now, leaseMs],
  );
  const row = rows[0];
  return row
    ? {
        id: row.id,
        userId: row.user_id,
        topic: row.topic,
        shopDomain: row.shop_domain,
        shopperEmail: row.shopper_email,
        customerId: row.customer_id,
        shopperPhone: row.shopper_phone,
        orderIds: row.order_ids,
        attempts: row.attempts,
      }
    : null;
}

export async function finishPrivacyRequest(db: Queryable, id: string, now: Date, done: { recordsAffected: number; exportLocation: string | null }): Promise<void> {
  const { recordsAffected, exportLocation } = done;
  // The phone was needed to find the shopper; Flowsmith keeps no phone numbers beyond that.
  await db.query(`UPDATE privacy_requests SET status = 'done', done_at = $2, lease_until = NULL, records_affected = $3, export_location = $4, shopper_phone = NULL WHERE id = $1`, [
    id,
    now,
    recordsAffected,
    exportLocation,
  ]);
}

export async function savePrivacyExport(
  db: Queryable,
  exported: { requestId: string; userId: string; shopperEmail: string | null; shopDomain: string | null; content: unknown },
  now: Date,
): Promise<void> {
  const { requestId, userId, shopperEmail, shopDomain, content } = exported;
  await db.query(
    `INSERT INTO privacy_exports (request_id, user_id, shopper_email, shop_domain, content, created_at) VALUES ($1, $2, lower($3), $4, $5::jsonb, $6)
     ON CONFLICT (request_id) DO UPDATE SET content = EXCLUDED.content, created_at = EXCLUDED.created_at`,
    [requestId, userId, shopperEmail, shopDomain, JSON.stringify(content), now],
  );
}

export async function findPrivacyExport(db: Queryable, userId: string, requestId: string): Promise<{ content: unknown; shopperEmail: string | null } | null> {
  const { rows } = await db.query<{ content: unknown; shopper_email: string | null }>('SELECT content, shopper_email FROM privacy_exports WHERE user_id = $1 AND request_id = $2', [
    userId,
    requestId,
  ]);
  return rows[0] ? { content: rows[0].content, shopperEmail: rows[0].shopper_email } : null;
}

/**
 * How the audit list names a shopper whose data is erased: the first letter and the
 * domain, so the owner can still tell the requests apart, but not the address itself.
 */
const maskedEmailSql = (column: string) => `left(${column}, 1) || '***@' || split_part(${column}, '@', 2)`;

/**
 * Exports made earlier for a shopper (or for a whole shop) are shopper data too; so is the
 * address in the audit list's entries, which then keep only a masked form of it.
 */
export async function erasePrivacyExports(db: Queryable, userId: string, scope: { shopperEmail: string } | { shopDomain: string }): Promise<number> {
  if ('shopperEmail' in scope) {
    const { rowCount } = await db.query('DELETE FROM privacy_exports WHERE user_id = $1 AND shopper_email = lower($2)', [userId, scope.shopperEmail]);
    await db.query(`UPDATE privacy_requests SET shopper_email = ${maskedEmailSql('shopper_email')} WHERE user_id = $1 AND shopper_email = lower($2)`, [userId, scope.shopperEmail]);
    return rowCount ?? 0;
  }
  const { rowCount } = await db.query('DELETE FROM privacy_exports WHERE user_id = $1 AND (shop_domain = lower($2) OR shop_domain IS NULL)', [userId, scope.shopDomain]);
  await db.query(
    `UPDATE privacy_requests SET shopper_email = ${maskedEmailSql('shopper_email')}
      WHERE user_id = $1 AND (shop_domain = lower($2) OR shop_domain IS NULL) AND shopper_email NOT LIKE '_***@%'`,
    [userId, scope.shopDomain],
  );
  return rowCount ?? 0;
}

export async function listPrivacyRequests(db: Queryable, userId: string): Promise<PrivacyRequest[]> {
  const { rows } = await db.query<{
    id: string;
    topic: PrivacyTopic;
    shop_domain: string | null;
    shopper_email: string | null;
    customer_id: string | null;
    requested_at: Date | null;
    received_at: Date;
    status: PrivacyRequest['status'];
    done_at: Date | null;
    records_affected: number | null;
    export_location: string | null;
  }>(
    `SELECT id, topic, shop_domain, shopper_email, customer_id, requested_at, received_at, status, done_at, records_affected, export_location
       FROM privacy_requests WHERE user_id = $1 ORDER BY received_at DESC, id LIMIT 500`,
    [userId],
  );
  return rows.map((row) => ({
    id: row.id,
    topic: row.topic,
    shopDomain: row.shop_domain,
    shopperEmail: row.shopper_email,
    customerId: row.customer_id,
    requestedAt: row.requested_at?.toISOString() ?? null,
    receivedAt: row.received_at.toISOString(),
    status: row.status,
    doneAt: row.done_at?.toISOString() ?? null,
    recordsAffected: row.records_affected,
    exportLocation: row.export_location,
  }));
}
