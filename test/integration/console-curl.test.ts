import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ownerWithFlows, useEngineScenario, allStandIns } from '../support/engine-scenario.ts';
import { curlCommand } from '../../src/web/webhooks/curl-command.ts';
import { sampleTestEvent } from '../../src/shared/webhooks/sample-events.ts';
import { webhookConsoleMessages } from '../../src/shared/webhooks/webhook-messages.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

const run = promisify(execFile);

const scenario = useEngineScenario({ standIns: allStandIns, listen: true });

describe('Copy as cURL', () => {
  it('gives a command that delivers the payload to the flow, quotes and all, when run in a shell', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: {} });
    const flow = await owner.client.call(endpoints.flows.list);
    const webhookUrl = (flow.json.flows as Array<{ flowType: string; webhookUrl: string }>).find((candidate) => candidate.flowType === 'abandoned_checkout')!.webhookUrl;
    const event = sampleTestEvent('abandoned_checkout', new Date(), 'evt_curl_quotes');
    const payload = { ...event, properties: { ...event.properties, customer: { email: 'obrien@example.com', first_name: "Siobhán 'Shiv'", last_name: "O'Brien $HOME `x` \\n" } } };
    const command = curlCommand(webhookUrl, JSON.stringify(payload, null, 2));

    const { stdout } = await run('sh', ['-c', `${command} --silent --write-out ' %{http_code}'`]);
    expect(stdout.trim().endsWith('202'), stdout).toBe(true);
    const { rows } = await scenario.testApp.database.pool.query<{ raw_body: string; source: string }>(
      "SELECT raw_body, source FROM events WHERE user_id = $1 AND external_event_id = 'evt_curl_quotes'",
      [owner.userId],
    );
    expect(rows).toHaveLength(1);
    // Stored as sent, less the shopper's street address (docs/decisions/0029-retention-and-account-deletion.md).
    expect(JSON.parse(rows[0]!.raw_body)).toEqual({ ...payload, properties: { ...payload.properties, shipping_address: {} } });
    expect(rows[0]!.source).toBe('generic');
  });

  it('gives a commented hint instead of a command for invalid JSON', async () => {
    const hint = curlCommand('http://127.0.0.1:1/api/webhooks/abandoned_cart/x', '{"event_id": ');
    expect(hint).toBe(webhookConsoleMessages.curlInvalidHint);
    const { stdout, stderr } = await run('sh', ['-c', hint]);
    expect(stdout + stderr).toBe('');
  });
});
