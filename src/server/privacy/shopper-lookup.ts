import type pg from 'pg';
import { inTransaction, type Queryable } from '../database/database.ts';
import { listFlowsForUser } from '../flows/flow-queries.ts';
import { klaviyoAuthOf, type EngineCredentials } from '../engine/spine/engine-credentials.ts';
import { unsetProfileProperties } from '../integrations/klaviyo/klaviyo-profiles.ts';
import { ServiceError } from '../integrations/service-error.ts';
import type { Clock } from '../platform/clock.ts';
import type { ShopperEraseResult, ShopperSummary } from '../../shared/privacy/privacy-schemas.ts';
import { privacyMessages } from '../../shared/privacy/privacy-messages.ts';
import type { ShopperEventExport } from '../events/shopper-event-queries.ts';
import { recordDonePrivacyRequest } from './privacy-queries.ts';
import { eraseScope, exportShopper } from './shopper-data-registry.ts';
import { profilePropertiesWritten } from '../flows/flow-properties.ts';

/** "Find a shopper" on the privacy page: what is kept about one shopper of the signed-in owner. */
export async function summariseShopper(db: Queryable, userId: string, email: string): Promise<ShopperSummary> {
  const content = await exportShopper(db, userId, email);
  const events = (content.events ?? []) as ShopperEventExport[];
  const sandbox = (content.sandbox ?? { profiles: [], events: [] }) as { profiles: unknown[]; events: unknown[] };
  const otherRecords = sandbox.profiles.length + sandbox.events.length;
  return {
    email,
    found: events.length + otherRecords > 0,
    events: events.length,
    texts: events.reduce((sum, event) => sum + event.texts.filter((text) => text.text !== null).length, 0),
    // An abandonment timer is a waiting event (docs/decisions/0011-shopper-timers.md).
    timers: events.filter((event) => event.status === 'waiting' && event.processAfter !== null).length,
    otherRecords,
    recentEvents: events.slice(0, 50).map((event) => ({
      id: event.id,
      flowType: event.flowType,
      source: event.source,
      status: event.status,
      receivedAt: event.receivedAt.toISOString(),
      texts: event.texts.length,
    })),
  };
}

export interface EraseDependencies {
  pool: pg.Pool;
  clock: Clock;
  /** The owner's service credentials (the sandbox's stand-ins while it is on). */
  loadCredentials: (db: Queryable, userId: string) => Promise<EngineCredentials | null>;
  klaviyoBaseUrl: string;
  klaviyoTimeoutMs?: number;
}

/**
 * Erases the shopper from every table and records it in the audit list, in one
 * transaction; then, when asked, removes the flows' properties from the shopper's Klaviyo
 * profile. Klaviyo comes after the commit: a failed call there must not bring back what
 * was erased here, and the owner is told it failed.
 */
export async function eraseShopperForOwner(deps: EraseDependencies, userId: string, email: string, unsetKlaviyo: boolean): Promise<ShopperEraseResult> {
  const now = deps.clock.now();
  const recordsAffected = await inTransaction(deps.pool, async (client) => {
    const erased = await eraseScope(client, { kind: 'shopper', userId, shopperEmail: email });
    await recordDonePrivacyRequest(client, { userId, topic: 'owner/erase', shopDomain: null, shopperEmail: email, customerId: null, webhookId: null, requestedAt: now, receivedAt: now }, erased);
    return erased;
  });
  if (!unsetKlaviyo) return { recordsAffected, klaviyo: 'not_asked', klaviyoMessage: null };
  const credentials = await deps.loadCredentials(deps.pool, userId);
  if (!credentials) return { recordsAffected, klaviyo: 'no_credentials', klaviyoMessage: privacyMessages.klaviyoNoCredentials };
  const properties = [...new Set((await listFlowsForUser(deps.pool, userId)).flatMap(profilePropertiesWritten))];
  if (properties.length === 0) return { recordsAffected, klaviyo: 'removed', klaviyoMessage: null };
  try {
    await unsetProfileProperties(
      { baseUrl: credentials.sandbox?.klaviyoBaseUrl ?? deps.klaviyoBaseUrl, ...(await klaviyoAuthOf(credentials)), timeoutMs: deps.klaviyoTimeoutMs ?? 30_000, now: () => deps.clock.now() },
      email,
      properties,
    );
    return { recordsAffected, klaviyo: 'removed', klaviyoMessage: null };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { recordsAffected, klaviyo: 'failed', klaviyoMessage: `${privacyMessages.klaviyoFailed} (${error.message})` };
  }
}
