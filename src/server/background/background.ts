import type { Logger } from 'pino';
import type { AppRole } from '../config.ts';

/**
 * Where a part of the background work runs:
 * - `worker`: the processes that work on events (ROLE all and worker);
 * - `web`: the processes that answer HTTP (ROLE all and web), for what their requests need;
 * - `every`: every process, whatever its role: the job queue (every role sends), and the
 *   database's upkeep, which decides by the database the process holds (the embedded
 *   database's upkeep runs wherever that database is).
 */
export type BackgroundPlace = 'worker' | 'web' | 'every';

export interface BackgroundPart {
  /** Names the part in logs and in `running()`. */
  name: string;
  runsIn: BackgroundPlace;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface Background {
  /** Starts, in order, every part this process's role runs. */
  start(): Promise<void>;
  /** Stops the started parts in the reverse order, each waiting for its work under way. */
  stop(): Promise<void>;
  /** The parts running now, in start order. */
  running(): string[];
}

export function runsInRole(place: BackgroundPlace, role: AppRole): boolean {
  if (place === 'every') return true;
  return role === 'all' || role === place;
}

/**
 * The one place that starts and stops the server's background work
 * (docs/decisions/0036-background-work.md). Parts are given in the order they start; a
 * part that needs another running (the event worker queues bulk deliveries) comes after it,
 * and so stops before it.
 */
export function createBackground(dependencies: { role: AppRole; logger: Logger; parts: BackgroundPart[] }): Background {
  const logger = dependencies.logger.child({ module: 'background' });
  const names = new Set<string>();
  for (const part of dependencies.parts) {
    if (names.has(part.name)) throw new Error(`Two background parts are named ${part.name}`);
    names.add(part.name);
  }
  let started: BackgroundPart[] = [];
  let starting: Promise<void> | null = null;
  return {
    start() {
      starting ??= (async () => {
        for (const part of dependencies.parts) {
          if (!runsInRole(part.runsIn, dependencies.role)) continue;
          await part.start();
          started.push(part);
        }
        logger.info({ role: dependencies.role, parts: started.map((part) => part.name) }, 'background work started');
      })();
      return starting;
    },
    async stop() {
      await starting?.catch(() => undefined);
      starting = null;
      const stopping = started.reverse();
      started = [];
      for (const part of stopping) {
        try {
          await part.stop();
        } catch (error) {
          // One part that cannot stop cleanly must not keep the others running.
          logger.warn({ err: error, part: part.name }, 'a background part did not stop cleanly');
        }
      }
    },
    running: () => started.map((part) => part.name),
  };
}
