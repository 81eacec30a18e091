import type { StoredFunction } from './database/stored-function.ts';
import { reserveGenerationCapsFunction } from './engine/limits/generation-cap-functions.ts';
import { takeKlaviyoSlotFunction } from './engine/delivery/klaviyo-rate-functions.ts';
import { storeEventsOnceFunction } from './events/event-storage-functions.ts';
import { flowsDefaultWebhookKeyFunction } from './flows/flow-key-functions.ts';
import { recordEventArrivalsFunction, recordEventChangeFunction } from './realtime/event-change-functions.ts';

/**
 * Every function the app stores in the database, each as its module holds it now
 * (docs/decisions/0034-stored-functions-in-modules.md). The numbered migrations that
 * first defined them (007, 011, 022–025, 031, 034) stay as they are: owners' databases
 * have applied them, and a fresh database replays them before these texts replace theirs.
 *
 * Listed here, at the top, and handed to the migration runner (`openDatabase`,
 * `runMigrations`), so database/ imports no feature: each feature's `*-functions.ts`
 * imports only database/stored-function.ts, and the features import database/.
 */
export const storedFunctions: readonly StoredFunction[] = [
  flowsDefaultWebhookKeyFunction,
  recordEventChangeFunction,
  recordEventArrivalsFunction,
  storeEventsOnceFunction,
  reserveGenerationCapsFunction,
  takeKlaviyoSlotFunction,
];
