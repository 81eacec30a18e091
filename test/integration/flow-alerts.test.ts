import { describe, expect, it } from 'vitest';
import { flowAlertMessages } from '../../src/shared/alerts/flow-alert-messages.ts';
import { ownerWithFlows, postEvent, sampleEvent, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * When a flow stops writing texts for a reason its owner controls, the owner is told at
 * once, with how many shoppers it touched and what lifts it, on the pages and by one mail
 * per flow and day (docs/decisions/0041-flow-alerts.md).
 */
const scenario = useEngineScenario({ standIns: allStandIns, smtp: true }, { clearFailures: true, advanceClockMs: 61_000 });
const db = () => scenario.testApp.database.pool;

async function ownerEmail(owner: Owner): Promise<string> {
  const { rows } = await db().query<{ email: string }>('SELECT email FROM users WHERE id = $1', [owner.userId]);
  return rows[0]!.email;
}

async function send(owner: Owner, label: string): Promise<string> {
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail(label) }));
  expect(response.status, response.text).toBe(202);
  return response.json.eventId as string;
}

describe('a flow that stops writing texts', () => {
  it('over its daily cap: says so with the count and the control, and mails the owner once that day', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    await db().query('UPDATE flows SET daily_generation_cap = 1 WHERE id = $1', [owner.flows.post_purchase.id]);
    scenario.testApp.clock.advance(61_000);
    expect(await waitForEvent(db(), await send(owner, 'alert-cap-first'))).toMatchObject({ status: 'delivered' });
    expect((await owner.client.call(endpoints.flowAlerts.list)).json.alerts).toEqual([]);

    for (const label of ['alert-cap-second', 'alert-cap-third']) expect(await waitForEvent(db(), await send(owner, label))).toMatchObject({ status: 'skipped' });
    const alerts = (await owner.client.call(endpoints.flowAlerts.list)).json.alerts;
    expect(alerts).toEqual([{ flowType: 'post_purchase', reason: 'daily_cap', shoppers: 2, detail: '1', since: expect.any(String), lastAt: expect.any(String) }]);
    expect(flowAlertMessages.reason.daily_cap('1', 2)).toContain('2 shoppers got no text today. Raise "Events a day"');

    const to = await ownerEmail(owner);
    const mail = await scenario.testApp.smtp.waitForMail(to, flowAlertMessages.mailSubject('Post Purchase'));
    expect(mail.body).toContain('Raise "Events a day"');
    expect(mail.body).toContain('/flows/post-purchase');
    expect(scenario.testApp.smtp.mails.filter((sent) => sent.to.includes(to))).toHaveLength(1);

    // Another owner sees none of it.
    const stranger = await ownerWithFlows(scenario, {});
    expect((await stranger.client.call(endpoints.flowAlerts.list)).json.alerts).toEqual([]);

    // The owner raising the cap is what lifts it: the alert is over.
    scenario.testApp.clock.advance(1_000);
    await db().query('UPDATE flows SET daily_generation_cap = 100, updated_at = $2 WHERE id = $1', [owner.flows.post_purchase.id, scenario.testApp.clock.now()]);
    expect((await owner.client.call(endpoints.flowAlerts.list)).json.alerts).toEqual([]);
  });

  it('when texts fail their checks twice, and when OpenAI refuses the key: one mail a day for the flow in all', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    scenario.testApp.clock.advance(61_000);
    const saved = await owner.client.call(endpoints.flows.update, {
      params: { flowType: 'post_purchase' },
      body: {
        isActive: true,
        klaviyoEventName: null,
        assistants: [{ name: 'Thank you', klaviyo_property: 'thank_you', prompt_template: 'Thank {first_name} for buying {products}' }],
        textRules: { onFailedChecks: 'nothing' },
      },
    });
    expect(saved.status, saved.text).toBe(200);
    scenario.testApp.clock.advance(61_000);
    scenario.openai.setResponder(() => 'Thanks! Use code SAVE20NOW on your next order.');
    expect(await waitForEvent(db(), await send(owner, 'alert-checks'))).toMatchObject({ status: 'skipped' });

    scenario.openai.failNext({ kind: 'status', status: 401, on: 'responses' });
    const refused = await waitForEvent(db(), await send(owner, 'alert-key'));
    expect(refused.status).toBe('failed');

    const reasons = (await owner.client.call(endpoints.flowAlerts.list)).json.alerts.map((alert: { reason: string; detail: string; shoppers: number }) => [alert.reason, alert.detail, alert.shoppers]);
    expect(reasons.sort()).toEqual([
      ['checks', '', 1],
      ['key_refused', 'OpenAI', 1],
    ]);
    const to = await ownerEmail(owner);
    await scenario.testApp.smtp.waitForMail(to, flowAlertMessages.mailSubject('Post Purchase'));
    expect(scenario.testApp.smtp.mails.filter((sent) => sent.to.includes(to))).toHaveLength(1);
  });
});
