import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, launchBrowser, openPageForEachTest, type BrowserErrors } from '../support/browser.ts';
import { copySessionCookies } from '../support/e2e-accounts.ts';
import { ownerWithFlows, postEvent, settleWithClockRunning, sampleEvent, shopifySecret, shopifyToken, useEngineScenario, validKlaviyoKey, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { sendShopifyWebhook, trailShoeOrder } from '../fakes/fake-shopify.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { klaviyoAccountLimits } from '../../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import { serviceConditionMessages as m, STORE_RECHECK_MINUTES } from '../../src/shared/service-conditions/service-condition-messages.ts';
import { pageRoutes } from '../../src/shared/routes.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * What only the server log knew, told to the owner in Chromium
 * (docs/decisions/0047-service-conditions.md): a Klaviyo key without the Lists permission
 * and a store that refuses the token, each shown once on the dashboard and the flow page
 * with its fix, and gone once fixed. The app runs in this process (the engine scenario) so
 * that the account's single writes can be limited to 2 a minute: from the third event in a
 * row, deliveries go to a bulk job, which the key may not run.
 */
const scenario = useEngineScenario({
  standIns: allStandIns,
  // Chromium, another process, loads the pages from it: a real port.
  listen: true,
  engine: { klaviyoLimits: { ...klaviyoAccountLimits, 'profile-import': [{ limit: 2, windowMs: 60_000 }] } },
});
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
openPageForEachTest(
  () => browser,
  () => scenario.testApp.baseUrl,
  (opened) => ({ context, page, errors } = opened),
);

const db = () => scenario.testApp.database.pool;
const oneAssistant = [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {name}' }];

async function signedInOwner(): Promise<Owner> {
  scenario.testApp.clock.advance(120_000);
  const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: oneAssistant } });
  await copySessionCookies(owner.client, context, scenario.testApp.baseUrl);
  return owner;
}

/** Single writes that a refused bulk job falls back to wait for the limit above: the app's clock runs meanwhile. */
async function sendOrdersAndSettle(owner: Owner, count: number, prefix: string): Promise<void> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail(`${prefix}-${index}`) }));
    expect(posted.status, posted.text).toBe(202);
    ids.push(posted.json.eventId as string);
  }
  const settled = await settleWithClockRunning(scenario, ids, { timeoutMs: 60_000 });
  expect([...settled.values()].map((row) => row.status)).toEqual(ids.map(() => 'delivered'));
}

/** The dashboard once its answer about conditions is in and shown (its flow cards wait for that answer). */
async function dashboardWithConditionsRead(): Promise<void> {
  const read = page.waitForResponse((response) => response.url().endsWith(endpoints.serviceConditions.list.path) && response.status() === 200);
  await page.goto(pageRoutes.dashboard);
  await read;
  await page.getByTestId('flow-state').first().waitFor();
}

const conditionAlert = (title: string) => page.getByTestId('service-conditions').getByRole('alert').filter({ hasText: title });

describe('a Klaviyo key without the Lists permission', () => {
  it('is shown on the dashboard and the flow page with its fix, and is gone once Klaviyo accepts a bulk job again', async () => {
    const owner = await signedInOwner();
    scenario.klaviyo.setScopes(validKlaviyoKey, ['accounts:read', 'lists:read', 'profiles:read', 'profiles:write', 'events:write']);
    try {
      await sendOrdersAndSettle(owner, 6, 'e2e-no-lists');
    } finally {
      scenario.klaviyo.setScopes(validKlaviyoKey, null);
    }

    await page.goto(pageRoutes.dashboard);
    const alert = conditionAlert(m.title.klaviyo_bulk_refused);
    await alert.waitFor();
    await expect.poll(() => alert.textContent()).toContain(m.fix.klaviyo_bulk_refused);
    await expect.poll(() => alert.textContent()).toContain('lists:write');
    // Shown once, however many batches met it.
    expect(await conditionAlert(m.title.klaviyo_bulk_refused).count()).toBe(1);
    await expectNoSeriousA11yViolations(page);
    await alert.getByRole('link', { name: m.fixLink }).click();
    await page.waitForURL(`**${pageRoutes.apiSettings}`);

    await page.goto(pageRoutes.postPurchase);
    await conditionAlert(m.title.klaviyo_bulk_refused).waitFor();

    // The owner gave the key its Lists permission in Klaviyo: the next backlog goes in bulk, and the warning goes.
    await sendOrdersAndSettle(owner, 6, 'e2e-lists-back');
    await dashboardWithConditionsRead();
    expect(await conditionAlert(m.title.klaviyo_bulk_refused).count()).toBe(0);
    expectNoBrowserErrors(errors);
  });
});

describe('a store that refuses the token', () => {
  it('is shown with its fix while the store refuses, and is gone once the store answers the re-check', async () => {
    const owner = await signedInOwner();
    scenario.shopify.accessTokens.delete(shopifyToken);
    try {
      const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${owner.flows.post_purchase.webhookPath}`, 'orders/create', trailShoeOrder(uniqueEmail('e2e-store'), 9301), shopifySecret);
      expect(sent.status, sent.text).toBe(202);
      await waitForEvents(db(), [JSON.parse(sent.text).eventId as string]);

      await page.goto(pageRoutes.dashboard);
      const alert = conditionAlert(m.title.shopify_refused);
      await alert.waitFor();
      await expect.poll(() => alert.textContent()).toContain(m.fix.shopify_refused);
      await expect.poll(() => alert.textContent()).toContain(`once every ${STORE_RECHECK_MINUTES} minutes`);
      await page.goto(pageRoutes.postPurchase);
      await conditionAlert(m.title.shopify_refused).waitFor();
    } finally {
      scenario.shopify.accessTokens.add(shopifyToken);
    }

    // The store is reconnected at Shopify's end: the periodic re-check notices it without the owner's help.
    scenario.testApp.clock.advance(STORE_RECHECK_MINUTES * 60_000 + 1_000);
    expect(await scenario.testApp.app.recheckRefusedStores()).toBeGreaterThanOrEqual(1);
    await dashboardWithConditionsRead();
    expect(await conditionAlert(m.title.shopify_refused).count()).toBe(0);
    expectNoBrowserErrors(errors);
  });
});
