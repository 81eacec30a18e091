import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerWithFlows, useEngineScenario, credentialsInput, sampleEvent, postEvent, waitForEvent, settleOnTheAppClock, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { pressConsentButton } from '../fakes/oauth-consent-page.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { strongPassword, uniqueEmail } from '../support/accounts.ts';
import type { HttpClient } from '../support/http-client.ts';
import { klaviyoKeyScopes } from '../../src/shared/credentials/klaviyo-scopes.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Klaviyo connected by OAuth with PKCE (docs/decisions/0048-connect-by-oauth.md), against
 * the Klaviyo stand-in's consent page and token endpoint: every call then carries the
 * token as Bearer and no private key, tokens are renewed before expiry and after a 401, a
 * refresh refused for good stops deliveries with the cause and loses no event, and
 * Disconnect revokes.
 */
const oauthApp = { clientId: 'flowsmith-klaviyo-client', clientSecret: 'flowsmith-klaviyo-secret-0123456789', redirectUris: [] as string[] };
const scenario = useEngineScenario({ standIns: allStandIns, klaviyo: { oauthApp, accountName: 'Trail Goods Marketing' } });

/** The owner's way through Klaviyo's consent page: the callback's address as Klaviyo sends the browser to it. */
async function approve(client: HttpClient, label: 'Allow' | 'Deny' = 'Allow'): Promise<string> {
  const started = await client.call(endpoints.connections.startKlaviyo, { body: { returnTo: '/settings/api' } });
  expect(started.status, started.text).toBe(200);
  const authorizeUrl = new URL(started.json.authorizeUrl as string);
  expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizeUrl.searchParams.get('scope')!.split(' ').sort()).toEqual([...klaviyoKeyScopes].sort());
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(page.status).toBe(200);
  const pressed = await pressConsentButton(authorizeUrl.toString(), await page.text(), label);
  expect(pressed.status).toBe(302);
  const callback = new URL(pressed.headers.get('location')!);
  return `${callback.pathname}${callback.search}`;
}

async function connected(owner: Owner): Promise<void> {
  const answered = await owner.client.get(await approve(owner.client));
  expect(answered.status).toBe(303);
  expect(answered.headers.get('location')).toBe('/settings/api?connected=klaviyo');
}

const refreshes = () => scenario.klaviyo.oauthTokenRequests.filter((request) => request.grantType === 'refresh_token');
const klaviyoWrites = () => scenario.klaviyo.requests.filter((request) => request.method === 'POST' && request.path === '/api/profile-import');

async function deliverOne(owner: Owner) {
  const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_checkout.webhookPath, sampleEvent('abandoned_checkout', { email: `oauth-${randomUUID()}@example.com` }));
  expect(posted.status).toBe(202);
  return posted.json.eventId as string;
}

describe('Klaviyo connected by OAuth', () => {
  it('connects with PKCE, drops the private key, and writes profiles with the Bearer token only', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    await connected(owner);
    const exchange = scenario.klaviyo.oauthTokenRequests.find((request) => request.grantType === 'authorization_code');
    expect(exchange?.status).toBe(200);
    const status = await owner.client.call(endpoints.connections.status);
    expect(status.json.klaviyo).toMatchObject({ accountName: 'Trail Goods Marketing', state: 'connected' });
    expect(status.json.klaviyo.scopes.sort()).toEqual([...klaviyoKeyScopes].sort());
    expect((await owner.client.call(endpoints.credentials.read)).json.credentials).toMatchObject({ klaviyoAuthMethod: 'oauth', klaviyoApiKey: null });

    const before = klaviyoWrites().length;
    const eventId = await deliverOne(owner);
    expect((await settleOnTheAppClock(scenario, [eventId])).get(eventId)!.status).toBe('delivered');
    const writes = klaviyoWrites().slice(before);
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) expect(String(write.headers.authorization)).toMatch(/^Bearer /);
  });

  it('renews the token before it expires and after a 401, and the event is delivered', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    await connected(owner);
    const before = refreshes().length;
    scenario.testApp.clock.advance(56 * 60_000);
    const first = await deliverOne(owner);
    expect((await settleOnTheAppClock(scenario, [first])).get(first)!.status).toBe('delivered');
    expect(refreshes().length - before).toBe(1);
    expect((await owner.client.call(endpoints.connections.status)).json.klaviyo.renewedAt).not.toBeNull();

    // Klaviyo stops taking the token before its hour is out: the 401 renews it and the event tries again.
    scenario.klaviyo.expireAccessTokens();
    const second = await deliverOne(owner);
    expect((await settleOnTheAppClock(scenario, [second], { stepMs: 60_000 })).get(second)!.status).toBe('delivered');
    expect(refreshes().length - before).toBe(2);
  });

  it('tells the owner when a renewal is refused for good, loses no event, and delivers it after reconnecting', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    await connected(owner);
    // The app is removed in Klaviyo: every token of it is refused from now on.
    scenario.klaviyo.revokeAllOAuthTokens();
    scenario.testApp.clock.advance(56 * 60_000);
    const eventId = await deliverOne(owner);
    const waiting = await waitForEvent(scenario.testApp.database.pool, eventId, { statuses: ['waiting'] });
    expect(waiting.error).toMatch(/Klaviyo refused to renew/);
    const refused = (await owner.client.call(endpoints.connections.status)).json.klaviyo;
    expect(refused).toMatchObject({ state: 'renewal_refused' });
    // Klaviyo's own words once, in one pair of brackets.
    expect(refused.problem).toMatch(/^Klaviyo refused to renew Flowsmith's access to the account \([^()]+\); the app may have been removed in Klaviyo\.$/);
    scenario.testApp.clock.advance(1_000);
    expect((await owner.client.call(endpoints.serviceConditions.list)).json.conditions).toEqual([expect.objectContaining({ kind: 'klaviyo_disconnected' })]);

    await connected(owner);
    expect((await owner.client.call(endpoints.serviceConditions.list)).json.conditions).toEqual([]);
    expect((await settleOnTheAppClock(scenario, [eventId], { stepMs: 60_000 })).get(eventId)!.status).toBe('delivered');
  });

  it('revokes the tokens at Klaviyo on Disconnect and deletes ours; deliveries then wait for a key or a new connection', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    await connected(owner);
    scenario.testApp.clock.advance(1_000);
    const revokedBefore = scenario.klaviyo.revocations.length;
    const answered = await owner.client.call(endpoints.connections.disconnectKlaviyo);
    expect(answered.json).toEqual({ disconnected: true, revoked: true });
    const revocation = scenario.klaviyo.revocations.at(-1)!;
    expect(scenario.klaviyo.revocations.length).toBe(revokedBefore + 1);
    expect(revocation).toMatchObject({ revoked: true, clientId: oauthApp.clientId });
    expect((await owner.client.call(endpoints.connections.status)).json.klaviyo).toBeNull();
    const eventId = await deliverOne(owner);
    const waiting = await waitForEvent(scenario.testApp.database.pool, eventId, { statuses: ['waiting'] });
    expect(waiting.error).toMatch(/Klaviyo is not connected/);
    // The keys path brings it back: a private key saved, the event goes out.
    const saved = await owner.client.call(endpoints.credentials.save, { body: credentialsInput() });
    expect(saved.status, saved.text).toBe(200);
    expect((await settleOnTheAppClock(scenario, [eventId], { stepMs: 60_000 })).get(eventId)!.status).toBe('delivered');
  });

  it('revokes the connection at Klaviyo when the owner deletes their account', async () => {
    const owner = await ownerWithFlows(scenario, {});
    await connected(owner);
    const before = scenario.klaviyo.revocations.length;
    const deleted = await owner.client.call(endpoints.account.delete, { body: { password: strongPassword, confirm: true } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(scenario.klaviyo.revocations.slice(before)).toEqual([expect.objectContaining({ revoked: true })]);
  });

  it('refuses a callback in another owner\'s session, a replay, and an unknown state, with a page; a declined consent returns with a code', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('klaviyo-owner') });
    const stranger = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('klaviyo-stranger') });
    const callback = await approve(owner.client);
    const refused = await stranger.client.get(callback);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('another Flowsmith account');
    const replayed = await owner.client.get(callback);
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('already used');
    const unknown = await owner.client.get(`/api/connections/klaviyo/callback?code=x&state=${createHash('sha256').update('guess').digest('base64url')}`);
    expect(unknown.status).toBe(400);
    expect((await owner.client.call(endpoints.connections.status)).json.klaviyo).toBeNull();
    expect((await stranger.client.call(endpoints.connections.status)).json.klaviyo).toBeNull();

    const declined = await owner.client.get(await approve(owner.client, 'Deny'));
    expect(declined.headers.get('location')).toBe('/settings/api?connection_error=denied&service=klaviyo');
  });
});
