import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { startFakeShopify, type FakeShopify } from '../fakes/fake-shopify.ts';
import { CredentialDecryptionError, createCredentialCipher, parseCredentialsKey } from '../../src/server/platform/credential-cipher.ts';
import { loadServiceCredentials } from '../../src/server/credentials/credential-store.ts';
import { rotateCredentialsKey } from '../../src/server/credentials/credential-key-rotation.ts';
import { createMissingFlows } from '../../src/server/flows/flow-queries.ts';
import { loadFlowSigningSecrets, requireFlowSignature } from '../../src/server/flows/flow-signature-queries.ts';
import { unlessRefused } from '../../src/server/platform/http-errors.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

const run = promisify(execFile);
const rotateScript = path.resolve(import.meta.dirname, '../../src/server/rotate-credentials-key.ts');

let testApp: TestApp;
let openai: FakeOpenAI;
let klaviyo: FakeKlaviyo;
let shopify: FakeShopify;

beforeAll(async () => {
  openai = await startFakeOpenAI({ validKeys: ['sk-rotation-0123456789'] });
  klaviyo = await startFakeKlaviyo({ validKeys: ['pk_rotation_0123456789'] });
  shopify = await startFakeShopify({ clientId: 'rotation-client', clientSecret: 'rotation-secret-0123456789' });
  testApp = await startTestApp({ env: { OPENAI_BASE_URL: openai.apiBaseUrl, KLAVIYO_BASE_URL: klaviyo.baseUrl, SHOPIFY_BASE_URL: shopify.baseUrl } });
});
afterAll(async () => {
  await testApp?.close();
  await openai?.close();
  await klaviyo?.close();
  await shopify?.close();
});

async function ownerWithCredentials() {
  const { client } = await insertSignedInOwner(testApp);
  const userId = (await client.call(endpoints.account.session)).json.user.id as string;
  const saved = await client.call(endpoints.credentials.save, {
    body: {
      klaviyoApiKey: 'pk_rotation_0123456789',
      openaiApiKey: 'sk-rotation-0123456789',
      openaiModel: 'gpt-5-mini',
      shopifyDomain: 'test-shop.myshopify.com',
      shopifyAuthMethod: 'client_credentials',
      shopifyClientId: 'rotation-client',
      shopifyClientSecret: 'rotation-secret-0123456789',
    },
  });
  expect(saved.status).toBe(200);
  return userId;
}

describe('credentials key rotation', () => {
  it('re-encrypts every stored value in one go; a value the old key cannot read stops it and changes nothing', async () => {
    const first = await ownerWithCredentials();
    const second = await ownerWithCredentials();
    const { pool } = testApp.database;
    const oldCipher = testApp.app.credentialCipher;
    // A flow of the first owner requires a signature; its secret is under the same key.
    await createMissingFlows(pool, first);
    const { flowId, secret } = unlessRefused(await requireFlowSignature(pool, { cipher: oldCipher, clock: testApp.clock }, first, 'abandoned_cart'));
    const newCipher = createCredentialCipher(Buffer.alloc(32, 7));
    const before = (await pool.query('SELECT * FROM api_credentials ORDER BY user_id')).rows;

    // A broken value in one record: nothing at all may move.
    await pool.query("UPDATE api_credentials SET openai_api_key = 'v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' WHERE user_id = $1", [second]);
    await expect(rotateCredentialsKey(pool, oldCipher, newCipher)).rejects.toThrow(CredentialDecryptionError);
    const unchanged = (await pool.query('SELECT klaviyo_api_key FROM api_credentials WHERE user_id = $1', [first])).rows[0];
    expect(unchanged.klaviyo_api_key).toBe(before.find((row) => row.user_id === first).klaviyo_api_key);
    await pool.query('UPDATE api_credentials SET openai_api_key = $2 WHERE user_id = $1', [second, before.find((row) => row.user_id === second).openai_api_key]);

    const result = await rotateCredentialsKey(pool, oldCipher, newCipher);
    expect(result.records).toBeGreaterThanOrEqual(2);
    // Klaviyo, OpenAI, client id, client secret and the obtained token of each record.
    expect(result.values).toBe(result.records * 5);
    expect(result.flowSecrets).toBe(1);
    expect((await loadFlowSigningSecrets(pool, newCipher, flowId)).secrets.map((entry) => entry.secret)).toEqual([secret]);
    expect((await loadFlowSigningSecrets(pool, oldCipher, flowId)).unreadable).toBe(true);
    for (const userId of [first, second]) {
      expect((await loadServiceCredentials(pool, newCipher, userId))!.openaiApiKey).toBe('sk-rotation-0123456789');
      await expect(loadServiceCredentials(pool, oldCipher, userId)).rejects.toThrow(CredentialDecryptionError);
    }
    // Put things back for the next test, which rotates through the command.
    await rotateCredentialsKey(pool, newCipher, oldCipher);
  });

  it('`npm run credentials:rotate` moves the key file and the stored values to a new key', async () => {
    const userId = await ownerWithCredentials();
    const keyFile = path.join(testApp.config.dataDir, 'credentials-key');
    const oldKey = await readFile(keyFile, 'utf8');
    const { stdout } = await run(process.execPath, [rotateScript], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: testApp.config.dataDir, DATABASE_URL: testApp.database.connectionString },
    });
    expect(stdout).toMatch(/Re-encrypted \d+ values of \d+ credential records/);
    expect(stdout).toContain('credentials-key.previous');
    const newKey = await readFile(keyFile, 'utf8');
    expect(newKey).not.toBe(oldKey);
    expect(await readFile(`${keyFile}.previous`, 'utf8')).toBe(oldKey);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const newCipher = createCredentialCipher(parseCredentialsKey(newKey));
    expect((await loadServiceCredentials(testApp.database.pool, newCipher, userId))!.klaviyoApiKey).toBe('pk_rotation_0123456789');
    await expect(loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, userId)).rejects.toThrow(CredentialDecryptionError);
  });

  it('with CREDENTIALS_KEY, tells the operator the new key to set', async () => {
    const oldKey = (await readFile(path.join(testApp.config.dataDir, 'credentials-key'), 'utf8')).trim();
    const newKey = Buffer.alloc(32, 9).toString('base64');
    const { stdout } = await run(process.execPath, [rotateScript], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: testApp.config.dataDir, DATABASE_URL: testApp.database.connectionString, CREDENTIALS_KEY: oldKey, NEW_CREDENTIALS_KEY: newKey },
    });
    expect(stdout).toContain(`CREDENTIALS_KEY=${newKey}`);
    const { rows } = await testApp.database.pool.query('SELECT user_id FROM api_credentials');
    const newCipher = createCredentialCipher(parseCredentialsKey(newKey));
    for (const { user_id: userId } of rows) expect((await loadServiceCredentials(testApp.database.pool, newCipher, userId))!.openaiModel).toBe('gpt-5-mini');
  });

  it('refuses to run with a wrong current key and says nothing changed', async () => {
    const wrongKey = Buffer.alloc(32, 1).toString('base64');
    const failed = await run(process.execPath, [rotateScript], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: testApp.config.dataDir, DATABASE_URL: testApp.database.connectionString, CREDENTIALS_KEY: wrongKey },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((failed as { code: number }).code).toBe(1);
    expect((failed as { stderr: string }).stderr).toContain('No stored value was changed');
  });
});
