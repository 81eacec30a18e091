import { describe, expect, it } from 'vitest';
import { allGoingOn, ended, endedBy, goOn, type StepResult } from '../../src/server/engine/spine/step-result.ts';

/** A step that answers after `ms`, so the order in which steps finish can be set. */
const after = <T>(ms: number, result: StepResult<T> | Error): Promise<StepResult<T>> =>
  new Promise((resolve, reject) => setTimeout(() => (result instanceof Error ? reject(result) : resolve(result)), ms));

describe('a step of the pipeline', () => {
  it('ends the event with a core decision to skip or fail, and goes on with any other', () => {
    expect(endedBy({ kind: 'skip', reason: 'No email.' })).toEqual({ kind: 'ended', outcome: { status: 'skipped', reason: 'No email.', stop: null } });
    expect(endedBy({ kind: 'fail', reason: 'Unreadable.' })).toEqual({ kind: 'ended', outcome: { status: 'failed', reason: 'Unreadable.', stop: null } });
    expect(endedBy({ kind: 'go_on' })).toBeNull();
    expect(ended('skipped', 'Over the cap.', { reason: 'daily_cap', detail: '50' }).outcome.stop).toEqual({ reason: 'daily_cap', detail: '50' });
  });
});

describe('steps run side by side (allGoingOn)', () => {
  it('go on with every value, in the order the steps were given, whatever order they finish in', async () => {
    expect(await allGoingOn([after(20, goOn('a')), after(0, goOn('b')), after(10, goOn('c'))])).toEqual(goOn(['a', 'b', 'c']));
    expect(await allGoingOn<string>([])).toEqual(goOn([]));
  });

  it('end with the first end to arrive, as a rejection would under Promise.all', async () => {
    const late = ended('failed', 'late');
    const early = ended('skipped', 'early');
    expect(await allGoingOn([after(30, late), after(0, goOn('a')), after(10, early)])).toEqual(early);
  });

  it('let an error that arrives before any end go up as it is', async () => {
    const error = new Error('the database went away');
    await expect(allGoingOn([after(20, ended('failed', 'later')), after(0, error)])).rejects.toBe(error);
  });
});
