import type pg from 'pg';
import type { Engine } from './engine/spine/engine.ts';
import { RETENTION_SCHEDULE, type RetentionJob } from './retention/retention.ts';
import type { PrivacyWork } from './privacy/privacy-work.ts';
import { CHANGE_LOG_PRUNING_SCHEDULE, pruneChangeLog, type ChangeFeed } from './realtime/change-feed.ts';
import type { DatabaseUpkeep } from './background/database-upkeep.ts';
import type { BackgroundPart } from './background/background.ts';
import type { Clock } from './platform/clock.ts';
import { EXPERIMENT_PROMOTION_SCHEDULE, promoteWinners } from './experiments/experiment-changes.ts';
import { STORE_RECHECK_SCHEDULE } from './service-conditions/store-recheck.ts';

/**
 * Every part of the server's background work, in the order it starts (it stops in the
 * reverse), and where each runs. The table in docs/architecture.md ("Background work")
 * follows this list.
 */
export function appBackgroundParts(parts: {
  engine: Engine;
  retention: RetentionJob;
  privacyWork: PrivacyWork;
  pool: pg.Pool;
  changeFeed: ChangeFeed;
  databaseUpkeep: DatabaseUpkeep;
  clock: Clock;
  /** Asks the stores that refused their token again (service-conditions/store-recheck.ts). */
  recheckStores: () => Promise<number>;
}): BackgroundPart[] {
  return [
    // The queue, the bulk batches, the event worker, the timer sweep (engine.ts says why in this order).
    ...parts.engine.backgroundParts,
    // On pg-boss's cron (a quarter hour, a minute): one worker process runs each occurrence.
    parts.engine.scheduledPart('retention', RETENTION_SCHEDULE, () => parts.retention.runOnce(), 'retention pass failed; trying again at the next'),
    { name: 'privacy-work', runsIn: 'worker', start: () => parts.privacyWork.start(), stop: () => parts.privacyWork.stop() },
    parts.engine.scheduledPart('change-log-pruning', CHANGE_LOG_PRUNING_SCHEDULE, () => pruneChangeLog(parts.pool), 'change feed: could not delete old changes'),
    parts.engine.scheduledPart('experiment-promotions', EXPERIMENT_PROMOTION_SCHEDULE, () => promoteWinners(parts.pool, parts.clock.now()), 'promoting experiment winners failed; trying again at the next'),
    parts.engine.scheduledPart('store-rechecks', STORE_RECHECK_SCHEDULE, parts.recheckStores, 'asking refused stores again failed; trying again at the next'),
    // The live streams' poller: a web process serves the streams, so it reads the change log for them.
    { name: 'change-feed', runsIn: 'web', start: () => parts.changeFeed.start(), stop: () => parts.changeFeed.stop() },
    // By the database, not the role: whichever process holds the embedded database keeps it.
    { name: 'database-upkeep', runsIn: 'every', start: () => parts.databaseUpkeep.start(), stop: () => parts.databaseUpkeep.stop() },
  ];
}
