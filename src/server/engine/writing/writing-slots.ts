/**
 * The process's OpenAI calls at once. A worker's rate is its OpenAI calls in flight
 * divided by OpenAI's answer time; a job that is checking its texts or waiting on Klaviyo
 * holds no call, so it must not hold one of these either (docs/decisions/0042-writing-slots.md).
 * First come, first served; a waiting caller whose signal aborts (a stopping worker)
 * leaves the line at once.
 */
export class WritingSlots {
  private readonly capacity: number;
  private busy = 0;
  private readonly line: Array<{ take: () => void }> = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('A process needs at least one writing slot.');
    this.capacity = capacity;
  }

  /** Calls in flight now. */
  inUse(): number {
    return this.busy;
  }

  /** Callers waiting for a slot now. */
  waiting(): number {
    return this.line.length;
  }

  /** Runs `call` once a slot is free, and frees the slot when it settles. */
  async run<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    await this.take(signal);
    try {
      return await call();
    } finally {
      this.release();
    }
  }

  private take(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.busy < this.capacity) {
      this.busy += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.line.indexOf(entry);
        if (index >= 0) this.line.splice(index, 1);
        reject(signal.reason);
      };
      const entry = {
        take: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.line.push(entry);
    });
  }

  private release(): void {
    const next = this.line.shift();
    // The slot passes straight to the next in line, so `busy` stays as it is.
    if (next) next.take();
    else this.busy -= 1;
  }
}
