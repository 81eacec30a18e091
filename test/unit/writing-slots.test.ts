import { describe, expect, it } from 'vitest';
import { WritingSlots } from '../../src/server/engine/writing/writing-slots.ts';

/** A call that settles when the test says so. */
function heldCall() {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const settled = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { call: () => settled, finish, fail };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("a worker's writing slots", () => {
  it('runs no more calls at once than it has slots, and the next in line as one settles', async () => {
    const slots = new WritingSlots(2);
    const calls = [heldCall(), heldCall(), heldCall()];
    const started: number[] = [];
    const results = calls.map((held, index) =>
      slots.run(new AbortController().signal, () => {
        started.push(index);
        return held.call();
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(slots.inUse()).toBe(2);
    expect(slots.waiting()).toBe(1);

    calls[1]!.finish('second');
    expect(await results[1]).toBe('second');
    await tick();
    expect(started).toEqual([0, 1, 2]);
    expect(slots.inUse()).toBe(2);

    calls[0]!.finish('first');
    calls[2]!.finish('third');
    expect(await Promise.all(results)).toEqual(['first', 'second', 'third']);
    expect(slots.inUse()).toBe(0);
  });

  it('frees the slot of a call that fails, and the failure reaches its caller', async () => {
    const slots = new WritingSlots(1);
    const failing = heldCall();
    const first = slots.run(new AbortController().signal, failing.call);
    const second = slots.run(new AbortController().signal, async () => 'after');
    failing.fail(new Error('OpenAI answered 500'));
    await expect(first).rejects.toThrow('OpenAI answered 500');
    expect(await second).toBe('after');
    expect(slots.inUse()).toBe(0);
  });

  it('lets a waiting caller whose job is stopped leave the line without a slot, and the others keep their turn', async () => {
    const slots = new WritingSlots(1);
    const holding = heldCall();
    const first = slots.run(new AbortController().signal, holding.call);
    const stopping = new AbortController();
    let stoppedCallRan = false;
    const stopped = slots.run(stopping.signal, async () => {
      stoppedCallRan = true;
      return 'never';
    });
    const third = slots.run(new AbortController().signal, async () => 'third');
    await tick();
    expect(slots.waiting()).toBe(2);

    stopping.abort(new Error('The worker is stopping'));
    await expect(stopped).rejects.toThrow('The worker is stopping');
    expect(slots.waiting()).toBe(1);

    holding.finish('first');
    expect(await first).toBe('first');
    expect(await third).toBe('third');
    expect(stoppedCallRan).toBe(false);
    expect(slots.inUse()).toBe(0);
  });

  it('refuses a caller already stopped, and a worker without a slot', async () => {
    const stopped = new AbortController();
    stopped.abort(new Error('stopped'));
    await expect(new WritingSlots(1).run(stopped.signal, async () => 'never')).rejects.toThrow('stopped');
    expect(() => new WritingSlots(0)).toThrow(RangeError);
  });
});
