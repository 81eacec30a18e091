import type { Queryable } from '../database/database.ts';
import { eraseShopperEvents, findShopperEvents } from '../events/shopper-event-queries.ts';
import { eraseShopperCooldowns } from '../engine/limits/generation-cap-queries.ts';
import { eraseSandboxShopperData, findSandboxShopperData } from '../sandbox/sandbox-queries.ts';
import { erasePrivacyExports } from './privacy-queries.ts';
import { eraseAttributions, findShopperAttributions } from '../attribution/attribution-queries.ts';
import { eraseShopperKeys } from '../experiments/experiment-queries.ts';
import { shopperKey } from '../platform/shopper-key.ts';

/**
 * Everything Flowsmith keeps about a shopper, in one list (docs/decisions/0028-shopper-privacy.md).
 * Each entry names the tables it covers and finds (for an export) and erases (for a
 * redaction) its rows through the module that owns them. A new table that holds shopper
 * data is one more entry here; the integration test that scans every column of the schema
 * for an erased shopper's email fails until it has one.
 *
 * Erasing is idempotent: run again after a crash, an entry deletes what is left and counts it.
 * What is deliberately not here: privacy_requests (the audit record that an erasure was
 * asked for and done; an erasure masks its address, privacy-queries.ts), and the engine's in-process look-up cache of known shoppers, which
 * forgets an address within the hour on its own.
 */
export type ErasureScope = { kind: 'shopper'; userId: string; shopperEmail: string } | { kind: 'shop'; userId: string; shopDomain: string };

export interface ShopperDataEntry {
  /** The entry's key in an export. */
  name: string;
  /** The tables whose shopper rows the entry covers (with rows that cascade from them). */
  tables: readonly string[];
  /** What is kept about the shopper, for an export; null when the entry has nothing to show. */
  find(db: Queryable, userId: string, shopperEmail: string): Promise<unknown>;
  /** Deletes the scope's rows; returns how many went. */
  erase(db: Queryable, scope: ErasureScope): Promise<number>;
}

export const shopperDataRegistry: readonly ShopperDataEntry[] = [
  {
    // Raw payloads, normalised data, the texts written, the profile writes (and the Klaviyo
    // batch queue rows they are), cap passes, and abandonment timers (waiting events).
    name: 'events',
    tables: ['events', 'event_generations', 'event_deliveries', 'event_cap_passes'],
    find: (db, userId, shopperEmail) => findShopperEvents(db, { userId, shopperEmail }),
    erase: (db, scope) => eraseShopperEvents(db, scope.kind === 'shopper' ? { userId: scope.userId, shopperEmail: scope.shopperEmail } : scope),
  },
  {
    // Kept as a digest of the email, so there is nothing to show, but the digest still
    // tells whether the shopper was sent content lately.
    name: 'shopperCooldowns',
    tables: ['shopper_generation_cooldowns'],
    find: async () => null,
    erase: (db, scope) => eraseShopperCooldowns(db, scope.userId, scope.kind === 'shopper' ? scope.shopperEmail : null),
  },
  {
    // The sandbox's stand-in Klaviyo: its profiles are of the sample shop, not of a real
    // one, so a shop's erasure leaves them; a shopper's email typed into it goes.
    name: 'sandbox',
    tables: ['sandbox_profiles', 'sandbox_klaviyo_events'],
    find: (db, userId, shopperEmail) => findSandboxShopperData(db, userId, shopperEmail),
    erase: async (db, scope) => (scope.kind === 'shopper' ? eraseSandboxShopperData(db, scope.userId, scope.shopperEmail) : 0),
  },
  {
    // Orders credited to the flows: a shopper's erasure leaves the revenue counted without
    // the address; a shop's erasure removes the shop's orders.
    name: 'attributedOrders',
    tables: ['order_attributions'],
    find: (db, userId, shopperEmail) => findShopperAttributions(db, userId, shopperEmail),
    erase: (db, scope) => eraseAttributions(db, scope.userId, scope.kind === 'shopper' ? scope.shopperEmail : null),
  },
  {
    // A shopper's group in each experiment, kept as a digest of the email: nothing to show.
    // Erasure clears the digest and leaves the exposure (and its orders) counted, so the
    // experiment's figures stay whole without the person (docs/decisions/0043-experiments.md).
    name: 'experimentAssignments',
    tables: ['experiment_assignments', 'experiment_orders'],
    find: async () => null,
    erase: (db, scope) => eraseShopperKeys(db, scope.userId, scope.kind === 'shopper' ? shopperKey(scope.shopperEmail) : null),
  },
  {
    // Earlier exports hold everything above; they are not exported again.
    name: 'privacyExports',
    tables: ['privacy_exports'],
    find: async () => null,
    erase: (db, scope) => erasePrivacyExports(db, scope.userId, scope.kind === 'shopper' ? { shopperEmail: scope.shopperEmail } : { shopDomain: scope.shopDomain }),
  },
];

/** Erases the scope from every entry; returns the rows deleted. */
export async function eraseScope(db: Queryable, scope: ErasureScope, registry: readonly ShopperDataEntry[] = shopperDataRegistry): Promise<number> {
  let erased = 0;
  for (const entry of registry) erased += await entry.erase(db, scope);
  return erased;
}

/** What is kept about the shopper, one key per entry (entries with nothing to show left out). */
export async function exportShopper(db: Queryable, userId: string, shopperEmail: string, registry: readonly ShopperDataEntry[] = shopperDataRegistry): Promise<Record<string, unknown>> {
  const content: Record<string, unknown> = {};
  for (const entry of registry) {
    const found = await entry.find(db, userId, shopperEmail);
    if (found !== null) content[entry.name] = found;
  }
  return content;
}
