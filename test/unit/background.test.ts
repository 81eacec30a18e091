import { describe, expect, it } from 'vitest';
import { createBackground, type BackgroundPart, type BackgroundPlace } from '../../src/server/background/background.ts';
import type { AppRole } from '../../src/server/config.ts';
import { createLogger } from '../../src/server/logger.ts';

function recordingParts(places: Array<[string, BackgroundPlace]>, failingStop: string | null = null) {
  const calls: string[] = [];
  const parts: BackgroundPart[] = places.map(([name, runsIn]) => ({
    name,
    runsIn,
    start: async () => void calls.push(`start ${name}`),
    stop: async () => {
      calls.push(`stop ${name}`);
      if (name === failingStop) throw new Error('could not stop');
    },
  }));
  return { calls, parts };
}

const places: Array<[string, BackgroundPlace]> = [
  ['queue', 'every'],
  ['worker-a', 'worker'],
  ['feed', 'web'],
  ['worker-b', 'worker'],
];

async function startedIn(role: AppRole) {
  const { calls, parts } = recordingParts(places);
  const background = createBackground({ role, logger: createLogger('silent'), parts });
  await background.start();
  return { calls, background };
}

describe('the background work', () => {
  it('starts, per role, the parts placed there, in the order given', async () => {
    expect((await startedIn('web')).background.running()).toEqual(['queue', 'feed']);
    expect((await startedIn('worker')).background.running()).toEqual(['queue', 'worker-a', 'worker-b']);
    expect((await startedIn('all')).background.running()).toEqual(['queue', 'worker-a', 'feed', 'worker-b']);
  });

  it('stops the started parts in the reverse order, and starts them again afterwards', async () => {
    const { calls, background } = await startedIn('worker');
    await background.stop();
    expect(background.running()).toEqual([]);
    expect(calls).toEqual(['start queue', 'start worker-a', 'start worker-b', 'stop worker-b', 'stop worker-a', 'stop queue']);
    await background.start();
    expect(background.running()).toEqual(['queue', 'worker-a', 'worker-b']);
  });

  it('stops the other parts when one fails to stop', async () => {
    const { calls, parts } = recordingParts(places, 'worker-b');
    const background = createBackground({ role: 'all', logger: createLogger('silent'), parts });
    await background.start();
    await background.stop();
    expect(calls.filter((call) => call.startsWith('stop'))).toEqual(['stop worker-b', 'stop feed', 'stop worker-a', 'stop queue']);
  });

  it('refuses two parts of one name, which running() could not tell apart', () => {
    const { parts } = recordingParts([
      ['twice', 'web'],
      ['twice', 'worker'],
    ]);
    expect(() => createBackground({ role: 'all', logger: createLogger('silent'), parts })).toThrow('Two background parts are named twice');
  });
});
