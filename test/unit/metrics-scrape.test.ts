import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AppMetrics } from '../../src/server/observability/metrics.ts';

/** Metrics whose database figures come from counters the test moves. */
function metricsOver(behind: { count: number; oldestSeconds: number | null }) {
  const reads = { behind: 0 };
  const metrics = new AppMetrics({
    pool: { waitingCount: 0, idleCount: 0, totalCount: 0 } as unknown as pg.Pool,
    backlog: async () => ({ queued: 0, oldestDueSeconds: 0 }),
    eventsBehind: async () => {
      reads.behind += 1;
      return { ...behind };
    },
    databaseBytes: async () => 1,
    largestTables: async () => [],
  });
  return { metrics, reads };
}

const valueOf = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

describe('GET /metrics figures from the database', () => {
  it('reads the database once a scrape, for all the gauges showing parts of one read', async () => {
    const { metrics, reads } = metricsOver({ count: 6, oldestSeconds: 240 });
    const text = await metrics.scrape();
    expect(valueOf(text, 'flowsmith_events_behind')).toBe(6);
    expect(valueOf(text, 'flowsmith_events_behind_oldest_seconds')).toBe(240);
    expect(reads.behind).toBe(1);
  });

  it('reads again for a scrape that follows at once (it returned the last scrape\'s figures)', async () => {
    const behind = { count: 6, oldestSeconds: 240 };
    const { metrics, reads } = metricsOver(behind);
    await metrics.scrape();
    behind.oldestSeconds = 300;
    expect(valueOf(await metrics.scrape(), 'flowsmith_events_behind_oldest_seconds')).toBe(300);
    expect(reads.behind).toBe(2);
  });
});
