import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { flowsmithSignature, ownerWithFlows, postEvent, postSignedEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { flowMessages } from '../../src/shared/flows/flow-messages.ts';
import { rejectionReasons } from '../../src/shared/events/event-messages.ts';
import {
  flowSignatureMessages,
  signatureAnswerMessages,
  signatureRejectionReasons,
  signingExample,
} from '../../src/shared/flows/flow-signature-messages.ts';
import { notRequiredSignature } from '../../src/shared/flows/flow-signature-schemas.ts';
import { maskSecret } from '../../src/server/platform/credential-masking.ts';
import type { FlowType } from '../../src/shared/flows/flow-types.ts';
import type { PixelEvent } from '../../src/shared/shopify-pixel/pixel-schemas.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

const run = promisify(execFile);

let owner: Owner;
/** Every secret the API handed out, to look for in the logs at the end. */
const issuedSecrets: string[] = [];

const scenario = useEngineScenario({ standIns: allStandIns, listen: true });

const db = () => scenario.testApp.database.pool;
const baseUrl = () => scenario.testApp.baseUrl;
const now = () => scenario.testApp.clock.now();
/** The address input of a flow's signature endpoints. */
const signatureOf = (flowType: FlowType) => ({ params: { flowType } });

async function requireSignature(target: Owner, flowType: FlowType): Promise<string> {
  const enabled = await target.client.call(endpoints.flowSignature.require, signatureOf(flowType));
  expect(enabled.status, enabled.text).toBe(200);
  issuedSecrets.push(enabled.json.secret);
  return enabled.json.secret as string;
}

async function rejectionsOfFlow(flowId: string) {
  return (
    await db().query<{ error: string; source: string; raw_body: string | null }>(
      "SELECT error, source, raw_body FROM events WHERE flow_id = $1 AND status = 'rejected' ORDER BY received_at, id",
      [flowId],
    )
  ).rows;
}

function pixelEvent(email: string): PixelEvent {
  return {
    name: 'product_viewed',
    id: `sh-${randomUUID()}`,
    timestamp: now().toISOString(),
    clientId: `client-${randomUUID()}`,
    customer: { email, firstName: 'Pia', lastName: 'Pixel' },
    cartToken: null,
    url: 'https://shop.example/products/rain-jacket',
    product: { id: '7001', title: 'Rain Jacket', url: 'https://shop.example/products/rain-jacket', price: '120.00', currencyCode: 'EUR', quantity: 1 },
  };
}

describe('the signing example on the flow page', () => {
  // First, while the app's manual clock is still close to the shell's: the example signs with the real time.
  it('run in a shell with the secret in FLOWSMITH_SECRET, delivers a signed event', async () => {
    const exampleOwner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    const secret = await requireSignature(exampleOwner, 'abandoned_checkout');
    const flows = await exampleOwner.client.call(endpoints.flows.list);
    const webhookUrl = (flows.json.flows as Array<{ flowType: string; webhookUrl: string }>).find((flow) => flow.flowType === 'abandoned_checkout')!.webhookUrl;
    const skew = Math.abs(now().getTime() - Date.now());
    expect(skew, 'the app clock is within the replay window of the real one').toBeLessThan(240_000);

    const { stdout } = await run('sh', ['-c', `${signingExample(webhookUrl)} --silent --write-out ' %{http_code}'`], {
      env: { ...process.env, FLOWSMITH_SECRET: secret },
    });
    expect(stdout.trim().endsWith('202'), stdout).toBe(true);
    // Without the secret the same command is refused.
    const unsigned = await run('sh', ['-c', `${signingExample(webhookUrl)} --silent --write-out ' %{http_code}'`], {
      env: { ...process.env, FLOWSMITH_SECRET: 'whsec_not_the_secret' },
    });
    expect(unsigned.stdout.trim().endsWith('401'), unsigned.stdout).toBe(true);
  });
});

describe('turning the requirement on', () => {
  // Made after the shell example's test: setting up flows moves the app's clock on.
  beforeAll(async () => {
    owner = await ownerWithFlows(scenario, { abandoned_cart: {}, abandoned_checkout: { waitMinutes: 0 }, post_purchase: {}, browser_abandonment: {} });
  });

  it('returns the secret once, in full, and masked from then on', async () => {
    const before = await owner.client.call(endpoints.flowSignature.read, signatureOf('abandoned_cart'));
    expect(before.status).toBe(200);
    expect(before.json).toEqual({ signature: notRequiredSignature });

    scenario.testApp.clock.advance(61_000);
    const enabled = await owner.client.call(endpoints.flowSignature.require, signatureOf('abandoned_cart'));
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.headers.get('cache-control')).toBe('no-store');
    const secret = enabled.json.secret as string;
    issuedSecrets.push(secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(enabled.json.signature).toEqual({ required: true, maskedSecret: maskSecret(secret), createdAt: now().toISOString(), previousSecretValidUntil: null });
    expect(enabled.json.signature.maskedSecret).not.toContain(secret.slice(4, -4));

    const after = await owner.client.call(endpoints.flowSignature.read, signatureOf('abandoned_cart'));
    expect(after.json).toEqual({ signature: enabled.json.signature });
    expect(after.text).not.toContain(secret);
    expect((await owner.client.call(endpoints.flows.list)).text).not.toContain(secret);

    // Stored encrypted, never in the clear.
    const { rows } = await db().query<{ secret: string }>('SELECT secret FROM flow_signing_secrets WHERE flow_id = $1', [owner.flows.abandoned_cart.id]);
    expect(rows[0]!.secret.startsWith('v1:')).toBe(true);
    expect(rows[0]!.secret).not.toContain(secret);

    // A second "turn on" (a double click) keeps the first secret rather than replacing it unseen.
    const again = await owner.client.call(endpoints.flowSignature.require, signatureOf('abandoned_cart'));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: 'signature_already_required', message: flowSignatureMessages.alreadyRequired });
    expect(again.text).not.toContain('whsec_');
  });

  it('accepts a signed generic event and delivers it', async () => {
    const secret = await requireSignature(owner, 'post_purchase');
    const email = uniqueEmail('signed');
    const sent = await postSignedEvent(baseUrl(), owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email }), secret, now());
    expect(sent.status, sent.text).toBe(202);
    const settled = await waitForEvents(db(), [sent.json.eventId]);
    expect(settled.get(sent.json.eventId)).toMatchObject({ status: 'delivered' });
    expect(scenario.klaviyo.profiles.get(email)).toBeDefined();
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId: sent.json.eventId } });
    expect(detail.json.event).toMatchObject({ source: 'generic' });
    // The signature is not kept with the event.
    expect(JSON.stringify(detail.json.event.headers)).not.toContain('v1=');
  });

  it('refuses unsigned, wrongly signed, tampered and stale requests with 401 and records why', async () => {
    const secret = await requireSignature(owner, 'abandoned_checkout');
    const path = owner.flows.abandoned_checkout.webhookPath;
    // Without a street address, which the intake would not keep (docs/decisions/0029): the body stays byte for byte.
    const { shipping_address: _address, ...properties } = sampleEvent('abandoned_checkout').properties as Record<string, unknown>;
    const event = JSON.stringify({ ...sampleEvent('abandoned_checkout'), properties });
    const seconds = Math.floor(now().getTime() / 1000);

    const unsigned = await postEvent(baseUrl(), path, event);
    expect(unsigned.status).toBe(401);
    expect(unsigned.json).toEqual({ error: 'signature_required', message: signatureAnswerMessages.missing });

    // A sender's "this is a test" header is no way around it; only the console's own sends are.
    const claimsTest = await postEvent(baseUrl(), path, event, { 'X-Flowsmith-Source': 'test' });
    expect(claimsTest.status).toBe(401);
    // Nor is a Shopify topic without Shopify's signature.
    const claimsShopify = await postEvent(baseUrl(), path, event, { 'X-Shopify-Topic': 'checkouts/update' });
    expect(claimsShopify.status).toBe(401);

    const malformed = await postEvent(baseUrl(), path, event, { 'X-Flowsmith-Signature': `t=${seconds},v1=nothex` });
    expect(malformed.status).toBe(401);
    expect(malformed.json).toEqual({ error: 'bad_signature', message: signatureAnswerMessages.malformed });

    const wrongSecret = await postSignedEvent(baseUrl(), path, event, 'whsec_wrong', now());
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json).toEqual({ error: 'bad_signature', message: signatureAnswerMessages.mismatch });

    const tampered = await postEvent(baseUrl(), path, event.replace('shopper@example.com', 'mallory@example.com'), {
      'X-Flowsmith-Signature': flowsmithSignature(event, secret, now()),
    });
    expect(tampered.status).toBe(401);
    // A signature of the body at another time does not count for this time.
    const retimed = flowsmithSignature(event, secret, now()).replace(`t=${seconds}`, `t=${seconds - 1}`);
    expect((await postEvent(baseUrl(), path, event, { 'X-Flowsmith-Signature': retimed })).status).toBe(401);

    const stale = await postSignedEvent(baseUrl(), path, event, secret, new Date(now().getTime() - 301_000));
    expect(stale.status).toBe(401);
    expect(stale.json).toEqual({ error: 'signature_expired', message: signatureAnswerMessages.expired });
    const future = await postSignedEvent(baseUrl(), path, event, secret, new Date(now().getTime() + 301_000));
    expect(future.status).toBe(401);
    // Just inside the window is fine (a sender's clock a little off).
    const slightlyOld = await postSignedEvent(baseUrl(), path, sampleEvent('abandoned_checkout'), secret, new Date(now().getTime() - 299_000));
    expect(slightlyOld.status, slightlyOld.text).toBe(202);

    // Received at one moment of the manual clock, so compared without their order.
    const reasons = (await rejectionsOfFlow(owner.flows.abandoned_checkout.id)).map((rejection) => rejection.error).sort();
    expect(reasons).toEqual([
      signatureRejectionReasons.missing,
      signatureRejectionReasons.missing,
      rejectionReasons.shopifyUnsigned,
      signatureRejectionReasons.malformed,
      signatureRejectionReasons.mismatch,
      signatureRejectionReasons.mismatch,
      signatureRejectionReasons.mismatch,
      signatureRejectionReasons.expired(301),
      signatureRejectionReasons.expired(-301),
    ].sort());
    // The owner sees the body that was refused, to recognise the sender.
    const rejections = await rejectionsOfFlow(owner.flows.abandoned_checkout.id);
    expect(rejections.filter((rejection) => rejection.error === signatureRejectionReasons.missing)).toContainEqual({
      error: signatureRejectionReasons.missing,
      source: 'generic',
      raw_body: event,
    });
    // And sees it in the event log, like any other rejection.
    const log = await owner.client.call(endpoints.events.list, { query: { flowType: 'abandoned_checkout', status: 'rejected' } });
    expect(log.status, log.text).toBe(200);
    expect(log.text).toContain(JSON.stringify(signatureRejectionReasons.missing).slice(1, -1));
  });

  it('leaves Shopify-signed webhooks, the browsing pixel and the console test sends as they were', async () => {
    await requireSignature(owner, 'browser_abandonment');
    const checkout = await sendShopifyWebhook(
      `${baseUrl()}${owner.flows.abandoned_checkout.webhookPath}`,
      'checkouts/update',
      shopifyCheckoutPayload(uniqueEmail('shopify')),
      shopifySecret,
    );
    expect(checkout.status, checkout.text).toBe(202);
    // A bad Shopify signature is still Shopify's refusal, not ours.
    const forged = await sendShopifyWebhook(`${baseUrl()}${owner.flows.abandoned_checkout.webhookPath}`, 'checkouts/update', shopifyCheckoutPayload(uniqueEmail('forged')), 'not-it');
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.text).error).toBe('bad_signature');

    const pixel = await fetch((await owner.client.call(endpoints.flows.pixelAddress)).json.pixelUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(pixelEvent(uniqueEmail('pixel'))),
    });
    expect(pixel.status, await pixel.clone().text()).toBe(202);
    // The browsing flow's own URL still wants the signature from generic senders.
    expect((await postEvent(baseUrl(), owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment'))).status).toBe(401);

    scenario.testApp.clock.advance(61_000);
    const test = await owner.client.call(endpoints.webhooks.testSend, { params: { flowType: 'abandoned_cart' }, body: { payload: JSON.stringify(sampleEvent('abandoned_cart')), dryRun: true } });
    expect(test.status, test.text).toBe(202);
  });
});

describe('a new secret and turning off', () => {
  it('keeps accepting the previous secret for an hour after a new one is generated, then refuses it', async () => {
    const rotating = await ownerWithFlows(scenario, { post_purchase: {} });
    const path = rotating.flows.post_purchase.webhookPath;
    const first = await requireSignature(rotating, 'post_purchase');

    const rotated = await rotating.client.call(endpoints.flowSignature.rotate, signatureOf('post_purchase'));
    expect(rotated.status, rotated.text).toBe(200);
    const second = rotated.json.secret as string;
    issuedSecrets.push(second);
    expect(second).not.toBe(first);
    const validUntil = new Date(now().getTime() + 3_600_000).toISOString();
    expect(rotated.json.signature).toEqual({ required: true, maskedSecret: maskSecret(second), createdAt: now().toISOString(), previousSecretValidUntil: validUntil });
    const shown = await rotating.client.call(endpoints.flowSignature.read, signatureOf('post_purchase'));
    expect(shown.json.signature.previousSecretValidUntil).toBe(validUntil);
    expect(shown.text).not.toContain(second);

    expect((await postSignedEvent(baseUrl(), path, sampleEvent('post_purchase'), first, now())).status).toBe(202);
    expect((await postSignedEvent(baseUrl(), path, sampleEvent('post_purchase'), second, now())).status).toBe(202);

    scenario.testApp.clock.advance(59 * 60_000);
    expect((await postSignedEvent(baseUrl(), path, sampleEvent('post_purchase'), first, now())).status).toBe(202);

    scenario.testApp.clock.advance(2 * 60_000);
    const late = await postSignedEvent(baseUrl(), path, sampleEvent('post_purchase'), first, now());
    expect(late.status).toBe(401);
    expect(late.json.error).toBe('bad_signature');
    expect((await postSignedEvent(baseUrl(), path, sampleEvent('post_purchase'), second, now())).status).toBe(202);
    expect((await rotating.client.call(endpoints.flowSignature.read, signatureOf('post_purchase'))).json.signature.previousSecretValidUntil).toBeNull();
  });

  it('accepts unsigned events again once turned off, and can be turned on again with a fresh secret', async () => {
    const switching = await ownerWithFlows(scenario, { abandoned_cart: {} });
    const path = switching.flows.abandoned_cart.webhookPath;
    const secret = await requireSignature(switching, 'abandoned_cart');
    // The receiver has the requirement cached now.
    expect((await postEvent(baseUrl(), path, sampleEvent('abandoned_cart'))).status).toBe(401);

    const off = await switching.client.call(endpoints.flowSignature.remove, signatureOf('abandoned_cart'));
    expect(off.status, off.text).toBe(200);
    expect(off.json).toEqual({ signature: notRequiredSignature });
    const unsigned = await postEvent(baseUrl(), path, sampleEvent('abandoned_cart'));
    expect(unsigned.status, unsigned.text).toBe(202);
    // A sender still signing does no harm.
    expect((await postSignedEvent(baseUrl(), path, sampleEvent('abandoned_cart'), secret, now())).status).toBe(202);
    // Off twice is still off.
    expect((await switching.client.call(endpoints.flowSignature.remove, signatureOf('abandoned_cart'))).status).toBe(200);

    const rotateWhileOff = await switching.client.call(endpoints.flowSignature.rotate, signatureOf('abandoned_cart'));
    expect(rotateWhileOff.status).toBe(409);
    expect(rotateWhileOff.json.message).toBe(flowSignatureMessages.notRequired);

    const again = await requireSignature(switching, 'abandoned_cart');
    expect(again).not.toBe(secret);
    expect((await postSignedEvent(baseUrl(), path, sampleEvent('abandoned_cart'), secret, now())).status).toBe(401);
    expect((await postSignedEvent(baseUrl(), path, sampleEvent('abandoned_cart'), again, now())).status).toBe(202);
  });
});

describe('a secret that cannot be decrypted', () => {
  it('refuses signed requests with a reason that tells the owner to generate a new secret', async () => {
    const broken = await ownerWithFlows(scenario, { post_purchase: {} });
    const secret = await requireSignature(broken, 'post_purchase');
    // As after a credentials key change that did not re-encrypt it: a value of another key.
    await db().query('UPDATE flow_signing_secrets SET secret = $2 WHERE flow_id = $1', [broken.flows.post_purchase.id, `v1:${randomBytes(60).toString('base64')}`]);
    const sent = await postSignedEvent(baseUrl(), broken.flows.post_purchase.webhookPath, sampleEvent('post_purchase'), secret, now());
    expect(sent.status).toBe(401);
    expect((await rejectionsOfFlow(broken.flows.post_purchase.id)).map((rejection) => rejection.error)).toEqual([signatureRejectionReasons.unreadable]);
    // A new secret mends it.
    scenario.testApp.clock.advance(61_000);
    const rotated = await broken.client.call(endpoints.flowSignature.rotate, signatureOf('post_purchase'));
    expect(rotated.status).toBe(200);
    issuedSecrets.push(rotated.json.secret);
    expect((await postSignedEvent(baseUrl(), broken.flows.post_purchase.webhookPath, sampleEvent('post_purchase'), rotated.json.secret, now())).status).toBe(202);
  });
});

describe('owners', () => {
  it("never reach another owner's flow signature", async () => {
    const { client: stranger } = await insertSignedInOwner(scenario.testApp, { fullName: 'Bob Other', email: uniqueEmail('other') });
    // Without flows of their own, every signature route is 404 for them.
    for (const endpoint of [endpoints.flowSignature.read, endpoints.flowSignature.require, endpoints.flowSignature.rotate, endpoints.flowSignature.remove]) {
      const answer = await stranger.call(endpoint, signatureOf('abandoned_cart'));
      expect(answer.status, `${endpoint.method} ${endpointAddress(endpoint, signatureOf('abandoned_cart'))}`).toBe(404);
      expect(answer.json).toEqual({ error: 'flow_not_found', message: flowMessages.flowNotFound });
    }
    // With flows, they change only their own: Ada's requirement and secret stay.
    const adaBefore = (await owner.client.call(endpoints.flowSignature.read, signatureOf('abandoned_cart'))).json;
    expect(adaBefore.signature.required).toBe(true);
    expect((await stranger.call(endpoints.flows.initialize)).status).toBe(200);
    expect((await stranger.call(endpoints.flowSignature.read, signatureOf('abandoned_cart'))).json).toEqual({ signature: notRequiredSignature });
    expect((await stranger.call(endpoints.flowSignature.remove, signatureOf('abandoned_cart'))).status).toBe(200);
    issuedSecrets.push((await stranger.call(endpoints.flowSignature.require, signatureOf('abandoned_cart'))).json.secret);
    expect((await owner.client.call(endpoints.flowSignature.read, signatureOf('abandoned_cart'))).json).toEqual(adaBefore);
    expect((await postEvent(baseUrl(), owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart'))).status).toBe(401);

    const anonymous = await fetch(`${baseUrl()}${endpointAddress(endpoints.flowSignature.read, signatureOf('abandoned_cart'))}`);
    expect(anonymous.status).toBe(401);
  });

  it('keeps every secret out of the logs', () => {
    expect(issuedSecrets.length).toBeGreaterThanOrEqual(8);
    const logs = scenario.testApp.logLines.join('\n');
    expect(logs).toContain('webhook rejected');
    for (const secret of issuedSecrets) expect(logs).not.toContain(secret);
    expect(logs).not.toContain('whsec_');
  });
});
