import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import { ServiceError } from '../integrations/service-error.ts';
import { fetchGrantedScopes, fetchShop } from '../integrations/shopify/shopify-admin.ts';
import { shopifyScopes } from '../../shared/shopify-connect/shopify-scopes.ts';
import type { ShopifyAccessTokenProvider } from '../credentials/shopify-token-provider.ts';
import { STORE_RECHECK_MINUTES } from '../../shared/service-conditions/service-condition-messages.ts';
import { claimServiceConditionCheck, listServiceConditionsDueForCheck } from './service-condition-queries.ts';
import type { ServiceConditions } from './service-conditions.ts';

/** On pg-boss's cron (UTC): every minute, for the stores whose last check is STORE_RECHECK_MINUTES old. */
export const STORE_RECHECK_SCHEDULE = '* * * * *';
/** Stores asked in one pass: the rest wait for the next minute. */
const STORES_PER_PASS = 50;
const CHECK_TIMEOUT_MS = 8_000;

/** Whether an answer of the store means it refuses Flowsmith (not that it is down for now). */
export function storeRefuses(error: unknown): error is ServiceError {
  return error instanceof ServiceError && error.service === 'shopify' && ['unauthorized', 'forbidden', 'invalid_client', 'not_found', 'payment_required'].includes(error.code);
}

/**
 * The periodic re-check of stores that refused Flowsmith's token
 * (docs/decisions/0047-service-conditions.md): each is asked its name and the app's
 * granted scopes once every STORE_RECHECK_MINUTES with a freshly obtained token. A store that answers is noticed
 * without its owner's help: its condition ends and its events ask it again; one that still
 * refuses keeps its condition, with Shopify's newest words. A store that cannot be reached
 * (timeout, 5xx) is left as it is until the next check. Returns the stores that answered.
 */
export async function recheckRefusedStores(deps: { pool: pg.Pool; clock: Clock; logger: Logger; tokens: ShopifyAccessTokenProvider; conditions: ServiceConditions }): Promise<number> {
  const now = deps.clock.now();
  const due = await listServiceConditionsDueForCheck(deps.pool, 'shopify_refused', new Date(now.getTime() - STORE_RECHECK_MINUTES * 60_000), STORES_PER_PASS);
  let answered = 0;
  for (const condition of due) {
    if (!(await claimServiceConditionCheck(deps.pool, condition, now))) continue;
    const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
    try {
      const stale = await deps.tokens.connectionFor(condition.userId, signal).catch(() => null);
      // The token the store refused is dropped, so the check asks with a new one where the owner's app can obtain it.
      if (stale) await deps.tokens.invalidate(condition.userId, stale.accessToken);
      const connection = await deps.tokens.connectionFor(condition.userId, signal);
      if (!connection) {
        // No credentials any more: nothing to ask, nothing to warn of.
        await deps.conditions.end(condition.userId, 'shopify_refused');
        continue;
      }
      // As the refused calls were: the store by its token, and the scopes the product look-ups
      // and the catalogue need (a store that lost a scope answers the shop's name all the same).
      const asked = { ...connection, now: () => deps.clock.now() };
      await fetchShop(asked, signal);
      const granted = new Set(await fetchGrantedScopes(asked, signal));
      const missing = shopifyScopes.filter((scope) => !granted.has(scope));
      if (missing.length > 0) {
        await deps.conditions.raise({ userId: condition.userId, kind: 'shopify_refused', detail: `Shopify: the app lacks ${missing.join(', ')}` });
        continue;
      }
      await deps.conditions.end(condition.userId, 'shopify_refused');
      answered += 1;
      deps.logger.info({ userId: condition.userId, domain: connection.domain }, 'the store answers again');
    } catch (error) {
      if (storeRefuses(error)) await deps.conditions.raise({ userId: condition.userId, kind: 'shopify_refused', detail: error.message });
      else deps.logger.info({ userId: condition.userId, error: (error as Error).message }, 'the store could not be re-checked; trying at the next check');
    }
  }
  return answered;
}
