import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

// Regression: on the embedded database, concurrent requests of one owner once got other
// requests' rows, empty answers or 500s ("portal does not exist") because connections
// shared PGlite's single session message by message.
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp?.close();
});

it('answers many concurrent requests of two owners each with their own data', async () => {
  const ada = await insertSignedInOwner(testApp, { fullName: 'Ada Owner' });
  const bob = await insertSignedInOwner(testApp, { fullName: 'Bob Owner' });
  await ada.client.call(endpoints.flows.initialize);
  await bob.client.call(endpoints.flows.initialize);
  const requests = Array.from({ length: 24 }, (_unused, index) => {
    const owner = index % 2 === 0 ? ada : bob;
    return index % 3 === 0
      ? owner.client.call(endpoints.account.session).then((response) => ({ owner, kind: 'session' as const, response }))
      : owner.client.call(endpoints.flows.list).then((response) => ({ owner, kind: 'flows' as const, response }));
  });
  for (const { owner, kind, response } of await Promise.all(requests)) {
    expect(response.status).toBe(200);
    if (kind === 'session') expect(response.json.user.email).toBe(owner.email);
    else expect(response.json.flows).toHaveLength(4);
  }
});
