import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { compareChangeCursors, deleteOldChanges, listChangesAfter, type ChangeCursor, type EventChange } from './event-change-queries.ts';
import { createBackgroundLoop, type BackgroundLoop } from '../background/background-loop.ts';

/** The channel the trigger of migration 007 notifies with the changed flow's id. */
export const EVENT_CHANGES_CHANNEL = 'flowsmith_event_changes';

export interface ChangeSubscription {
  flowId: string;
  /** The last change this stream has sent (its SSE `id:`), or where it started. */
  after: ChangeCursor;
  send(changes: EventChange[]): void;
  /** Ends the stream (the server is shutting down). */
  close(): void;
}

export interface ChangeFeedOptions {
  /** The poll that finds changes when no notification comes (always, on embedded PGlite). */
  pollIntervalMs: number;
  /** Most changes read per query; a full batch is followed at once by the next. */
  batchSize: number;
}

/** Pauses before listening again after a lost LISTEN connection: 1 s, doubling up to 30 s. */
const RELISTEN_FIRST_DELAY_MS = 1_000;
const RELISTEN_MAX_DELAY_MS = 30_000;

export const defaultChangeFeedOptions: ChangeFeedOptions = { pollIntervalMs: 500, batchSize: 500 };

/**
 * When old changes are deleted, streams or none: every minute, on pg-boss's cron (the
 * background module runs it in the worker roles). Every event adds changes, and a shop
 * whose owner never opens a console must not keep them all; one process pruning is
 * enough, and a web process only reads the log.
 */
export const CHANGE_LOG_PRUNING_SCHEDULE = '* * * * *';

/** One pruning pass: the changes older than the window a stream can resume from. */
export async function pruneChangeLog(pool: pg.Pool): Promise<number> {
  return deleteOldChanges(pool);
}

/**
 * One per server process: finds new rows of the change log for every open stream of the
 * process with one query, and hands each stream the rows of its flow after its cursor.
 * A LISTEN on the trigger's channel makes that immediate on a server database; the poll
 * makes it work where notifications do not arrive (embedded PGlite, or a dropped LISTEN
 * connection). Nothing runs while no stream is open. A web part of the background work
 * (src/server/background/): the process that serves the streams runs it.
 */
export class ChangeFeed {
  private readonly subscriptions = new Set<ChangeSubscription>();
  private readonly pool: pg.Pool;
  private readonly clientConfig: pg.ClientConfig;
  private readonly logger: FastifyBaseLogger;
  private readonly options: ChangeFeedOptions;
  /** Polls every pollIntervalMs while a stream is open, and at once on a notification; one query at a time. */
  private readonly poller: BackgroundLoop;
  private listener: pg.Client | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private relistenDelayMs = RELISTEN_FIRST_DELAY_MS;
  /** Until start() and after stop(): streams may subscribe, nothing is polled. */
  private stopped = true;

  constructor(dependencies: { pool: pg.Pool; clientConfig: pg.ClientConfig; logger: FastifyBaseLogger; options?: Partial<ChangeFeedOptions> }) {
    this.pool = dependencies.pool;
    this.clientConfig = dependencies.clientConfig;
    this.logger = dependencies.logger.child({ module: 'change-feed' });
    this.options = { ...defaultChangeFeedOptions, ...dependencies.options };
    this.poller = createBackgroundLoop({
      name: 'change-feed',
      intervalMs: this.options.pollIntervalMs,
      run: () => this.poll(),
      logger: this.logger,
      runAtStart: false,
      failureMessage: 'change feed: a poll failed',
    });
  }

  start(): void {
    this.stopped = false;
    if (this.subscriptions.size > 0) {
      this.ensureRunning();
      this.requestPoll();
    }
  }

  subscribe(subscription: ChangeSubscription): () => void {
    this.subscriptions.add(subscription);
    this.ensureRunning();
    this.requestPoll();
    return () => {
      this.subscriptions.delete(subscription);
      if (this.subscriptions.size === 0) this.idle();
    };
  }

  openStreams(): number {
    return this.subscriptions.size;
  }

  /** Closes every stream and stops polling and listening. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const subscription of [...this.subscriptions]) subscription.close();
    this.subscriptions.clear();
    this.idle();
    await this.poller.stop();
  }

  private ensureRunning(): void {
    if (this.stopped || this.poller.isRunning()) return;
    this.poller.start();
    void this.listen();
  }

  private idle(): void {
    // Not awaited: a poll under way ends on its own, and stop() waits for it.
    void this.poller.stop();
    if (this.relistenTimer) clearTimeout(this.relistenTimer);
    this.relistenTimer = null;
    this.relistenDelayMs = RELISTEN_FIRST_DELAY_MS;
    const listener = this.listener;
    this.listener = null;
    void listener?.end().catch(() => undefined);
  }

  /**
   * Opens the LISTEN connection. When it fails or is lost (the database restarted, say),
   * the poll carries the streams meanwhile and listening is tried again with growing
   * pauses, for as long as a stream is open.
   */
  private async listen(): Promise<void> {
    const client = new pg.Client(this.clientConfig);
    let lost = false;
    const lose = (error: unknown) => {
      if (lost) return;
      lost = true;
      // A connection this feed closed itself (no stream left) is not lost.
      if (this.listener !== client) return;
      this.logger.warn({ err: { message: (error as Error | undefined)?.message } }, 'change feed: the LISTEN connection failed; polling meanwhile');
      this.listener = null;
      this.scheduleRelisten();
      void client.end().catch(() => undefined);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('the LISTEN connection ended')));
    client.on('notification', () => this.requestPoll());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENT_CHANGES_CHANNEL}`);
    } catch (error) {
      lose(error);
      return;
    }
    if (this.listener !== client) {
      await client.end().catch(() => undefined);
      return;
    }
    this.relistenDelayMs = RELISTEN_FIRST_DELAY_MS;
    // Notifications sent while nobody listened are gone; the poll finds their changes.
    this.requestPoll();
  }

  private scheduleRelisten(): void {
    if (this.stopped || this.subscriptions.size === 0 || this.relistenTimer) return;
    const delay = this.relistenDelayMs;
    this.relistenDelayMs = Math.min(this.relistenDelayMs * 2, RELISTEN_MAX_DELAY_MS);
    this.relistenTimer = setTimeout(() => {
      this.relistenTimer = null;
      if (!this.stopped && this.subscriptions.size > 0 && !this.listener) void this.listen();
    }, delay);
    this.relistenTimer.unref();
  }

  /** Polls now, or right after the poll under way (one query at a time per process). */
  private requestPoll(): void {
    if (this.stopped || this.subscriptions.size === 0) return;
    this.poller.wake();
  }

  private async poll(): Promise<void> {
    if (this.subscriptions.size === 0) return;
    const cursors = new Map<string, ChangeCursor>();
    for (const subscription of this.subscriptions) {
      const current = cursors.get(subscription.flowId);
      if (current === undefined || compareChangeCursors(subscription.after, current) < 0) cursors.set(subscription.flowId, subscription.after);
    }
    let changes: EventChange[];
    try {
      changes = await listChangesAfter(this.pool, cursors, this.options.batchSize);
    } catch (error) {
      this.logger.warn({ err: error }, 'change feed: could not read changes');
      return;
    }
    if (changes.length === 0) return;
    for (const subscription of this.subscriptions) {
      const mine = changes.filter((change) => change.flowId === subscription.flowId && compareChangeCursors(change.cursor, subscription.after) > 0);
      if (mine.length === 0) continue;
      subscription.after = mine[mine.length - 1]!.cursor;
      try {
        subscription.send(mine);
      } catch (error) {
        // One stream's failure must not keep the others from their changes.
        this.logger.warn({ err: error, flowId: subscription.flowId }, 'change feed: a stream could not take its changes');
      }
    }
    // A full batch: the rest follows right after this pass.
    if (changes.length === this.options.batchSize) this.poller.wake();
  }
}
