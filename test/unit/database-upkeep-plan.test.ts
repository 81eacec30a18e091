import { describe, expect, it } from 'vitest';
import { defaultDatabaseUpkeepOptions, planUpkeep, upkeepMode } from '../../src/server/background/database-upkeep.ts';
import type { TableActivity } from '../../src/server/background/database-upkeep-queries.ts';

function table(name: string, liveRows: number, deadRows: number, modifiedSinceAnalyze = 0): TableActivity {
  return { name, qualifiedName: `"${name}"`, liveRows, deadRows, modifiedSinceAnalyze };
}

describe('which tables an upkeep pass works on', () => {
  it('vacuums a table whose dead rows pass 200 plus 20 % of its live rows, and leaves one below', () => {
    const plan = planUpkeep([table('events', 100_000, 20_199), table('pgboss.job', 50, 211), table('flows', 10, 202)], defaultDatabaseUpkeepOptions);
    expect(plan.vacuum.map((each) => each.name)).toEqual(['pgboss.job']);
    expect(planUpkeep([table('events', 100_000, 20_201)], defaultDatabaseUpkeepOptions).vacuum.map((each) => each.name)).toEqual(['events']);
  });

  it('analyzes a table that grew without dead rows, past 500 plus 10 % of its rows changed', () => {
    const plan = planUpkeep([table('event_generations', 10_000, 0, 1_501), table('event_deliveries', 10_000, 0, 1_499)], defaultDatabaseUpkeepOptions);
    expect(plan.vacuum).toEqual([]);
    expect(plan.analyze.map((each) => each.name)).toEqual(['event_generations']);
  });

  it('analyzes a table no more often than it may: a vacuum then goes without, an analyze alone waits', () => {
    const tables = [table('events', 10_000, 5_000, 9_000), table('event_generations', 10_000, 0, 9_000)];
    const plan = planUpkeep(tables, defaultDatabaseUpkeepOptions, (name) => name !== 'events' && name !== 'event_generations');
    expect(plan.vacuum.map((each) => [each.name, each.analyze])).toEqual([['events', false]]);
    expect(plan.analyze).toEqual([]);
    const later = planUpkeep(tables, defaultDatabaseUpkeepOptions, () => true);
    expect(later.vacuum.map((each) => [each.name, each.analyze])).toEqual([['events', true]]);
    expect(later.analyze.map((each) => each.name)).toEqual(['event_generations']);
  });

  it('takes the tables with the most dead rows first, and no more than a pass may take', () => {
    const tables = Array.from({ length: 12 }, (_, index) => table(`t${index}`, 0, 1_000 + index * 100));
    const plan = planUpkeep(tables, { ...defaultDatabaseUpkeepOptions, maxTablesPerPass: 3 });
    expect(plan.vacuum.map((each) => each.name)).toEqual(['t11', 't10', 't9']);
    expect(plan.analyze).toEqual([]);
  });
});

describe('what the app keeps up itself', () => {
  it('everything on the embedded database, whatever its autovacuum setting says', () => {
    expect(upkeepMode({ embedded: true, autovacuumEnabled: true })).toBe('embedded');
    expect(upkeepMode({ embedded: true, autovacuumEnabled: false })).toBe('embedded');
  });

  it("vacuum and analyze on a server without autovacuum, nothing on one with it", () => {
    expect(upkeepMode({ embedded: false, autovacuumEnabled: false })).toBe('vacuum-only');
    expect(upkeepMode({ embedded: false, autovacuumEnabled: true })).toBe('none');
  });
});

