import { describe, expect, it } from 'vitest';
import { createBackgroundLoop } from '../../src/server/background/background-loop.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pass that waits until the test lets it finish, counting how many ran and how many at once. */
function gatedPasses() {
  const state = { started: 0, finished: 0, atOnce: 0, mostAtOnce: 0 };
  let release: Array<() => void> = [];
  const run = async () => {
    state.started += 1;
    state.atOnce += 1;
    state.mostAtOnce = Math.max(state.mostAtOnce, state.atOnce);
    await new Promise<void>((resolve) => release.push(resolve));
    state.atOnce -= 1;
    state.finished += 1;
  };
  const finishAll = () => {
    const waiting = release;
    release = [];
    for (const resolve of waiting) resolve();
  };
  return { state, run, finishAll };
}

function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (_details: object, message: string) => void warnings.push(message) } };
}

describe('the background loop', () => {
  it('runs at start and then every interval, and not before start or after stop', async () => {
    let passes = 0;
    const { logger } = recordingLogger();
    const loop = createBackgroundLoop({ name: 'counting', intervalMs: 20, run: async () => void (passes += 1), logger });
    loop.wake();
    await pause(60);
    expect(passes).toBe(0);
    loop.start();
    await expect.poll(() => passes, { timeout: 2_000, interval: 5 }).toBeGreaterThanOrEqual(3);
    await loop.stop();
    const atStop = passes;
    loop.wake();
    await pause(80);
    expect(passes).toBe(atStop);
  });

  it('waits one interval for its first pass when asked to', async () => {
    let passes = 0;
    const { logger } = recordingLogger();
    const loop = createBackgroundLoop({ name: 'later', intervalMs: 150, run: async () => void (passes += 1), logger, runAtStart: false });
    loop.start();
    await pause(50);
    expect(passes).toBe(0);
    await expect.poll(() => passes, { timeout: 2_000, interval: 10 }).toBe(1);
    await loop.stop();
  });

  it('never runs two passes at once, and makes one more pass for any number of wake-ups during a pass', async () => {
    const { state, run, finishAll } = gatedPasses();
    const { logger } = recordingLogger();
    const loop = createBackgroundLoop({ name: 'gated', intervalMs: 60_000, run, logger });
    loop.start();
    await expect.poll(() => state.started, { timeout: 2_000, interval: 5 }).toBe(1);
    loop.wake();
    loop.wake();
    loop.wake();
    await pause(20);
    expect(state.started).toBe(1);
    finishAll();
    await expect.poll(() => state.started, { timeout: 2_000, interval: 5 }).toBe(2);
    finishAll();
    await expect.poll(() => state.finished, { timeout: 2_000, interval: 5 }).toBe(2);
    await pause(30);
    // The wake-ups during the first pass asked for one pass after it, not three.
    expect(state.started).toBe(2);
    expect(state.mostAtOnce).toBe(1);
    await loop.stop();
  });

  it('keeps going after a failed pass, and logs the failure', async () => {
    let passes = 0;
    const { warnings, logger } = recordingLogger();
    const loop = createBackgroundLoop({
      name: 'flaky',
      intervalMs: 10,
      run: async () => {
        passes += 1;
        if (passes === 1) throw new Error('the database is away');
      },
      logger,
    });
    loop.start();
    await expect.poll(() => passes, { timeout: 2_000, interval: 5 }).toBeGreaterThanOrEqual(3);
    await loop.stop();
    expect(warnings).toEqual(['flaky: a pass failed; trying again']);
  });

  it('stops only once the pass under way has ended', async () => {
    const { state, run, finishAll } = gatedPasses();
    const { logger } = recordingLogger();
    const loop = createBackgroundLoop({ name: 'slow', intervalMs: 10, run, logger });
    loop.start();
    await expect.poll(() => state.started, { timeout: 2_000, interval: 5 }).toBe(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await pause(30);
    expect(stopped).toBe(false);
    finishAll();
    await stopping;
    expect(state.finished).toBe(1);
    await pause(40);
    expect(state.started).toBe(1);
  });

  it('comes back sooner when woken for a moment before the next interval, and keeps the earlier of two such moments', async () => {
    const times: number[] = [];
    const { logger } = recordingLogger();
    const loop = createBackgroundLoop({ name: 'sweep', intervalMs: 60_000, run: async () => void times.push(Date.now()), logger, runAtStart: false });
    loop.start();
    const asked = Date.now();
    loop.wakeIn(60);
    loop.wakeIn(5_000);
    await expect.poll(() => times.length, { timeout: 2_000, interval: 5 }).toBe(1);
    expect(times[0]! - asked).toBeGreaterThanOrEqual(50);
    expect(times[0]! - asked).toBeLessThan(1_000);
    await loop.stop();
  });
});
