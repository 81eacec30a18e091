import { expect, it } from 'vitest';
import { throughDatabaseOutages } from '../../src/server/engine/spine/database-outages.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';

/** Which failures of an event's job are run again in place (a database that cannot answer), and which go up. */
const poolTimeout = () => new Error('timeout exceeded when trying to connect');

function failingTimes(times: number, error: () => unknown) {
  let calls = 0;
  return {
    run: async () => {
      calls += 1;
      if (calls <= times) throw error();
      return 'done';
    },
    calls: () => calls,
  };
}

const noWait = { sleep: async () => undefined };

it('runs the job again after each pause while the database cannot answer, and returns what it returns', async () => {
  const job = failingTimes(2, poolTimeout);
  const pauses: number[] = [];
  const result = await throughDatabaseOutages(job.run, { ...noWait, signal: new AbortController().signal, pausesMs: [10, 20, 30], onOutage: (_error, pauseMs) => pauses.push(pauseMs) });
  expect(result).toBe('done');
  expect(job.calls()).toBe(3);
  expect(pauses).toEqual([10, 20]);
});

it('gives the failure up once every pause is spent', async () => {
  const job = failingTimes(5, poolTimeout);
  await expect(throughDatabaseOutages(job.run, { ...noWait, signal: new AbortController().signal, pausesMs: [10, 20] })).rejects.toThrow('timeout exceeded when trying to connect');
  expect(job.calls()).toBe(3);
});

it('sends any other failure up at once: a bug, and a service that could not be reached even with a network error inside', async () => {
  const bug = failingTimes(1, () => new TypeError('undefined is not a function'));
  await expect(throughDatabaseOutages(bug.run, { ...noWait, signal: new AbortController().signal, pausesMs: [10] })).rejects.toThrow(TypeError);
  expect(bug.calls()).toBe(1);

  const unreachable = () => Object.assign(new ServiceError('openai', 'network', 'could not be reached'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  const service = failingTimes(1, unreachable);
  await expect(throughDatabaseOutages(service.run, { ...noWait, signal: new AbortController().signal, pausesMs: [10] })).rejects.toBeInstanceOf(ServiceError);
  expect(service.calls()).toBe(1);
});

it('stops waiting when the worker stops', async () => {
  const stopping = new AbortController();
  const job = failingTimes(1, poolTimeout);
  const sleep = (_ms: number, signal?: AbortSignal) =>
    new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  let pausing!: () => void;
  const paused = new Promise<void>((resolve) => (pausing = resolve));
  const running = throughDatabaseOutages(job.run, { sleep, signal: stopping.signal, pausesMs: [60_000], onOutage: () => pausing() });
  await paused;
  stopping.abort(new Error('The worker is stopping'));
  await expect(running).rejects.toThrow('The worker is stopping');
  expect(job.calls()).toBe(1);
});
