import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProfileImportJob, getProfileImportJob, listImportErrors } from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';

let klaviyo: FakeKlaviyo;
beforeAll(async () => {
  klaviyo = await startFakeKlaviyo({ bulkJobMs: 0 });
});
afterAll(async () => {
  await klaviyo?.close();
});

describe('a bulk job’s import errors', () => {
  it('are read from every page, following Klaviyo’s cursor on the app’s own base URL', async () => {
    const connection = { baseUrl: klaviyo.baseUrl, apiKey: 'pk_test_valid', timeoutMs: 5_000 };
    const refused = Array.from({ length: 130 }, (_, index) => `refused-${index}@example.com`);
    for (const email of refused) klaviyo.refuseInBulk(email, `No mail to ${email}.`);
    const profiles = [...refused, 'fine@example.com'].map((email) => ({ email, firstName: null, lastName: null, properties: { line: 'L' } }));
    const job = await createProfileImportJob(connection, profiles);
    expect((await getProfileImportJob(connection, job.id)).failedCount).toBe(130);
    const errors = await listImportErrors(connection, job.id);
    expect(errors.map((error) => error.email).sort()).toEqual([...refused].sort());
    expect(errors.find((error) => error.email === refused[120])?.reason).toBe(`No mail to ${refused[120]}.`);
    const pages = klaviyo.requests.filter((request) => request.path.endsWith('/import-errors') || request.path.endsWith('/import-errors/'));
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });
});
