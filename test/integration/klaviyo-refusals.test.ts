import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProfileImportJob, getProfileImportJob, importProfile, listImportErrors } from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
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

describe('Klaviyo’s refusals, in words', () => {
  it('names the permission a key lacks and what needs it (403), and says what to do about a refused key (401)', async () => {
    const connection = { baseUrl: klaviyo.baseUrl, apiKey: 'pk_test_valid', timeoutMs: 5_000 };
    klaviyo.setScopes('pk_test_valid', ['accounts:read', 'profiles:read']);
    try {
      const profile = { email: 'words@example.com', firstName: null, lastName: null, properties: { line: 'L' } };
      await expect(importProfile(connection, profile)).rejects.toMatchObject({
        code: 'forbidden',
        retryable: false,
        message: expect.stringMatching(/^Klaviyo: the API key lacks Profiles write access \(profiles:write\) that writing profiles needs; edit the key in Klaviyo/),
      });
      await expect(createProfileImportJob(connection, [profile])).rejects.toMatchObject({
        message: expect.stringContaining('lacks Lists write access (lists:write) and Profiles write access (profiles:write) that bulk delivery needs'),
      });
      await expect(importProfile({ ...connection, apiKey: 'pk_unknown' }, profile)).rejects.toMatchObject({
        code: 'unauthorized',
        message: expect.stringMatching(/^Klaviyo: the API key was refused \(.+\); save a valid private API key in API settings/),
      });
    } finally {
      klaviyo.setScopes('pk_test_valid', null);
    }
  });
});
