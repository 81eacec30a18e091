import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Resolver } from 'react-hook-form';

/**
 * sonner and the sign-in checks arrive after the page (src/web/app/toast.ts,
 * src/web/app/deferred-resolver.ts): nothing raised or checked before they arrive may be
 * lost, and a failed fetch is tried again.
 */
afterEach(() => {
  vi.doUnmock('sonner');
  vi.resetModules();
});

describe('toasts raised before sonner has arrived', () => {
  it('are all shown once it arrives, in the order raised, and later ones at once', async () => {
    const shown: string[] = [];
    let arrive!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    vi.doMock('sonner', async () => {
      await arrived;
      return {
        toast: {
          success: (message: string) => shown.push(`success ${message}`),
          error: (message: string) => shown.push(`error ${message}`),
          info: (message: string, options?: { duration?: number }) => shown.push(`info ${message} ${options?.duration}`),
        },
      };
    });
    const { toast, toasterReady } = await import('../../src/web/app/toast.ts');
    const ready = vi.fn();
    toasterReady.subscribe(ready);
    toast.success('one');
    toast.error('two');
    toast.info('three', { duration: 5 });
    expect(shown).toEqual([]);
    expect(toasterReady.get()).toBe(false);
    arrive();
    await vi.waitFor(() => expect(shown).toEqual(['success one', 'error two', 'info three 5']));
    expect(toasterReady.get()).toBe(true);
    expect(ready).toHaveBeenCalledTimes(1);
    toast.success('four');
    expect(shown.at(-1)).toBe('success four');
  });

  it('wait for the next toast\'s fetch when sonner could not be fetched', async () => {
    const shown: string[] = [];
    let attempts = 0;
    vi.doMock('sonner', () => {
      attempts += 1;
      if (attempts === 1) throw new Error('chunk failed');
      return { toast: { success: (message: string) => shown.push(message), error: () => undefined, info: () => undefined } };
    });
    const { toast, toasterReady } = await import('../../src/web/app/toast.ts');
    toast.success('lost connection');
    await vi.waitFor(() => expect(attempts).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(toasterReady.get()).toBe(false);
    toast.success('back online');
    await vi.waitFor(() => expect(shown).toEqual(['lost connection', 'back online']));
  });
});

describe('a form check whose code arrives later', () => {
  it('waits for it, runs it, and fetches it once', async () => {
    const { deferredResolver } = await import('../../src/web/app/deferred-resolver.ts');
    const check = vi.fn<Resolver<{ email: string }>>(async (values) => ({ values, errors: {} }));
    const load = vi.fn(async () => check);
    const deferred = deferredResolver(load);
    deferred.preload();
    const options = { fields: {}, shouldUseNativeValidation: false } as Parameters<Resolver<{ email: string }>>[2];
    await expect(deferred.resolver({ email: 'a@b.co' }, undefined, options)).resolves.toEqual({ values: { email: 'a@b.co' }, errors: {} });
    await deferred.resolver({ email: 'c@d.co' }, undefined, options);
    expect(load).toHaveBeenCalledTimes(1);
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('fails as a request that could not reach the server when its code cannot be fetched, and tries again next time', async () => {
    const { deferredResolver } = await import('../../src/web/app/deferred-resolver.ts');
    const { ApiRequestError, networkErrorBody } = await import('../../src/web/app/api-client.ts');
    const check: Resolver<{ email: string }> = async (values) => ({ values, errors: {} });
    const load = vi.fn<() => Promise<Resolver<{ email: string }>>>().mockRejectedValueOnce(new Error('chunk failed')).mockResolvedValue(check);
    const deferred = deferredResolver(load);
    const options = { fields: {}, shouldUseNativeValidation: false } as Parameters<Resolver<{ email: string }>>[2];
    const failed = await Promise.resolve(deferred.resolver({ email: 'a@b.co' }, undefined, options)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ApiRequestError);
    expect((failed as InstanceType<typeof ApiRequestError>).body).toEqual(networkErrorBody);
    await expect(deferred.resolver({ email: 'a@b.co' }, undefined, options)).resolves.toEqual({ values: { email: 'a@b.co' }, errors: {} });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
