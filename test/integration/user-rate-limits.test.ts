import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { fillRateLimitWindow } from '../support/rate-limit-uses.ts';
import { userRateLimits } from '../../src/server/platform/user-rate-limit.ts';
import { requestMessages } from '../../src/shared/messages.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * The per-owner limits (docs/decisions/0025-per-owner-rate-limits.md): sized so that a
 * person clicking fast with several tabs open is served, while a script hammering the API
 * is still refused with 429 and told when to come back.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp?.close();
});
// A fresh window for each test.
beforeEach(() => testApp.clock.advance(61_000));

async function owner() {
  const { client } = await insertSignedInOwner(testApp);
  const userId = (await client.call(endpoints.account.session)).json.user.id as string;
  expect((await client.call(endpoints.flows.initialize)).status).toBe(200);
  return { client, userId };
}

describe('per-owner rate limits', () => {
  it('serves the reads of a fast owner with five tabs open: 200 within the minute', async () => {
    const { client } = await owner();
    // What opening and clicking through pages asks for, tab after tab.
    const pageReads = [
      endpointAddress(endpoints.flows.list),
      endpointAddress(endpoints.credentials.status),
      endpointAddress(endpoints.events.list, { query: { flowType: 'abandoned_cart', limit: 25 } }),
      endpointAddress(endpoints.flowSignature.read, { params: { flowType: 'abandoned_cart' } }),
      endpointAddress(endpoints.events.activity),
    ];
    const tab = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i += 1) statuses.push((await client.get(pageReads[i % pageReads.length]!)).status);
      return statuses;
    };
    const statuses = (await Promise.all([tab(), tab(), tab(), tab(), tab()])).flat();
    expect(statuses).toHaveLength(200);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('serves a burst of saves and test sends an owner makes while setting up a flow', async () => {
    const { client } = await owner();
    const flow = (await client.call(endpoints.flows.list)).json.flows.find((candidate: { flowType: string }) => candidate.flowType === 'abandoned_cart');
    for (let i = 0; i < 40; i += 1) {
      const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: i % 2 === 0, assistants: flow.assistants } });
      expect(saved.status, saved.text).toBe(200);
    }
  });

  it('refuses reads past the limit with 429, Retry-After and the time in the body, and serves again when the window moves on', async () => {
    const { client, userId } = await owner();
    // A script's worth of reads, the oldest 45 seconds ago: the first frees up in 15 seconds.
    await fillRateLimitWindow(testApp.database.pool, userId, 'read', userRateLimits.read, new Date(testApp.clock.now().getTime() - 45_000));
    const refused = await client.call(endpoints.flows.list);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('15');
    expect(refused.json).toEqual({ error: 'rate_limited', message: requestMessages.rateLimited, retryAfterSeconds: 15 });
    // Writes have their own count.
    expect((await client.call(endpoints.flows.fixWebhookUrls)).status).toBe(200);
    testApp.clock.advance(15_000);
    expect((await client.call(endpoints.flows.list)).status).toBe(200);
  });

  it('refuses writes past their limit the same way', async () => {
    const { client, userId } = await owner();
    await fillRateLimitWindow(testApp.database.pool, userId, 'write', userRateLimits.write, testApp.clock.now());
    const refused = await client.call(endpoints.flows.fixWebhookUrls);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await client.call(endpoints.flows.list)).status).toBe(200);
  });

  it('keeps the limits well above a person and below a script', () => {
    expect(userRateLimits.read).toBeGreaterThanOrEqual(300);
    expect(userRateLimits.read).toBeLessThanOrEqual(1_000);
    expect(userRateLimits.write).toBeGreaterThanOrEqual(100);
    expect(userRateLimits.write).toBeLessThanOrEqual(userRateLimits.read);
  });
});
