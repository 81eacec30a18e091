import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, startEngineScenario, waitForEvent, type EngineScenario, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';
import { requestMessages } from '../../src/shared/messages.ts';
import { insertEventOnce, releaseWaitingEvent, setEventStatus, startReplay } from '../../src/server/events/event-queries.ts';
import { findEventsBehind } from '../../src/server/events/event-log-queries.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * What operators see from outside: metrics that move with what happens, readiness that
 * follows the database and its migrations, load shed early, and a description of the API.
 */
let scenario: EngineScenario;
let owner: Owner;

beforeAll(async () => {
  scenario = await startEngineScenario({ standIns: allStandIns });
  owner = await ownerWithFlows(scenario, { abandoned_cart: {} });
}, 60_000);

afterAll(async () => {
  await scenario?.close();
});

const baseUrl = () => scenario.testApp.baseUrl;

/** One sample's value in Prometheus' text format; undefined when the series is absent. */
function valueIn(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0] ?? '';
    if (wanted.every((pair) => labelText.includes(pair))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

/** One sample's value from the scenario's app; 0 when the series has not appeared yet. */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  return valueIn(await (await fetch(`${baseUrl()}/metrics`)).text(), name, labels) ?? 0;
}

describe('GET /metrics', () => {
  it('serves Prometheus text with the event loop, the pool and the queue', async () => {
    const response = await fetch(`${baseUrl()}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    for (const name of ['nodejs_eventloop_lag_seconds', 'flowsmith_db_pool_waiting', 'flowsmith_db_pool_connections', 'flowsmith_queue_jobs_due', 'flowsmith_queue_oldest_due_seconds']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts an accepted event, a delivered one, its generations and the service calls', async () => {
    const accepted = await sample('flowsmith_events_accepted_total', { source: 'generic' });
    const delivered = await sample('flowsmith_events_finished_total', { status: 'delivered' });
    const generations = await sample('flowsmith_generation_duration_seconds_count', { outcome: 'succeeded' });
    const outputTokens = await sample('flowsmith_generation_tokens_total', { kind: 'output' });
    const klaviyoCalls = await sample('flowsmith_service_calls_total', { service: 'klaviyo', outcome: 'success' });
    const posted = await postEvent(baseUrl(), owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('metrics') }));
    expect(posted.status).toBe(202);
    expect(await sample('flowsmith_events_accepted_total', { source: 'generic' })).toBe(accepted + 1);
    expect(await waitForEvent(scenario.testApp.database.pool, posted.json.eventId)).toMatchObject({ status: 'delivered' });
    await expect.poll(() => sample('flowsmith_events_finished_total', { status: 'delivered' })).toBe(delivered + 1);
    // The sample flow's two assistants share a model: one call writes both texts.
    expect(await sample('flowsmith_generation_duration_seconds_count', { outcome: 'succeeded' })).toBe(generations + 1);
    expect(await sample('flowsmith_generation_tokens_total', { kind: 'output' })).toBeGreaterThan(outputTokens);
    expect(await sample('flowsmith_service_calls_total', { service: 'klaviyo', outcome: 'success' })).toBeGreaterThan(klaviyoCalls);
  });

  it('counts a rejected event by source and reason code', async () => {
    const unsigned = await sample('flowsmith_events_rejected_total', { source: 'shopify', reason: 'shopify_unsigned' });
    const unknown = await sample('flowsmith_events_rejected_total', { source: 'unknown', reason: 'unknown_flow' });
    const refused = await fetch(`${baseUrl()}${owner.flows.abandoned_cart.webhookPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-topic': 'carts/update' },
      body: '{"id": 1}',
    });
    expect(refused.status).toBe(401);
    expect((await postEvent(baseUrl(), '/api/webhooks/abandoned_cart/not-a-flow-key', sampleEvent('abandoned_cart'))).status).toBe(404);
    expect(await sample('flowsmith_events_rejected_total', { source: 'shopify', reason: 'shopify_unsigned' })).toBe(unsigned + 1);
    expect(await sample('flowsmith_events_rejected_total', { source: 'unknown', reason: 'unknown_flow' })).toBe(unknown + 1);
  });

  it('counts a 429 from a service apart from other outcomes', async () => {
    const limited = await sample('flowsmith_service_calls_total', { service: 'klaviyo', outcome: 'rate_limited' });
    scenario.klaviyo.failNext({ kind: 'status', status: 429, retryAfterSeconds: 1, on: 'profile-import' });
    const posted = await postEvent(baseUrl(), owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('limited') }));
    expect(await waitForEvent(scenario.testApp.database.pool, posted.json.eventId)).toMatchObject({ status: 'delivered' });
    expect(await sample('flowsmith_service_calls_total', { service: 'klaviyo', outcome: 'rate_limited' })).toBe(limited + 1);
  });

  it('is not served to a request a proxy forwarded, nor to one without the token when a token is set', async () => {
    const forwarded = await fetch(`${baseUrl()}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(forwarded.status).toBe(404);
    const guarded = await startTestApp({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
    try {
      expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
      const allowed = await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789', 'x-forwarded-for': '203.0.113.9' } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('flowsmith_events_accepted_total');
    } finally {
      await guarded.close();
    }
  });
});

describe('GET /metrics: what is behind, and the database', () => {
  // An app of its own, without a worker (ROLE=web): the events stored here stay as stored,
  // and no other test's events are counted.
  let quiet: TestApp;
  const owner = { userId: `user-${randomUUID()}`, flowId: `flow-${randomUUID()}`, name: 'Backlog Owner' };
  beforeAll(async () => {
    quiet = await startTestApp({ env: { ROLE: 'web' } });
    await insertOwnerWithFlow(quiet.database, owner);
  }, 60_000);
  afterAll(async () => {
    await quiet?.close();
  });

  const scrape = async () => {
    const response = await fetch(`${quiet.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  };
  const ago = (seconds: number) => new Date(quiet.clock.now().getTime() - seconds * 1000);
  /** Stores an event received `receivedSecondsAgo` ago, then moves it as the engine would. */
  async function storeEvent(receivedSecondsAgo: number, fields: Parameters<typeof genericCartEvent>[1] = {}): Promise<string> {
    const event = genericCartEvent(owner, { receivedAt: ago(receivedSecondsAgo), ...fields });
    expect((await insertEventOnce(quiet.database.pool, event)).inserted).toBe(true);
    return event.id;
  }
  async function moveThrough(eventId: string, ...statuses: Array<'generating' | 'delivering' | 'delivered'>) {
    for (const status of statuses) expect(await setEventStatus(quiet.database.pool, { id: eventId, attempt: 1 }, status)).toBe(true);
  }

  it('counts the events due and not finished and the oldest one\'s wait since it became due, with help texts', async () => {
    const empty = await scrape();
    expect(valueIn(empty, 'flowsmith_events_behind')).toBe(0);
    expect(valueIn(empty, 'flowsmith_events_behind_oldest_seconds')).toBe(0);

    // Behind: received 2 min ago; generating and delivering, received 1 and 3 min ago;
    // waiting for 4 min past its time (received an hour ago: it was due only since then).
    await storeEvent(120);
    await moveThrough(await storeEvent(60), 'generating');
    await moveThrough(await storeEvent(180), 'generating', 'delivering');
    await storeEvent(3600, { status: 'waiting', processAfter: ago(240) });
    // A timer released 90 s ago from a wait that began two hours ago: due for 90 s.
    const released = await storeEvent(7200, { status: 'waiting', processAfter: ago(90) });
    expect(await releaseWaitingEvent(quiet.database.pool, released)).toBe(1);
    // A replay of a delivery of three days ago: due since the replay, not since it arrived.
    const replayed = await storeEvent(3 * 86_400);
    await moveThrough(replayed, 'generating', 'delivering', 'delivered');
    expect(await startReplay(quiet.database.pool, owner.userId, replayed)).not.toBeNull();
    // Not behind: a timer not yet due, finished events, a rejected request.
    await storeEvent(30, { status: 'waiting', processAfter: new Date(quiet.clock.now().getTime() + 600_000) });
    await moveThrough(await storeEvent(600), 'generating', 'delivering', 'delivered');
    await storeEvent(900, { status: 'skipped' });
    await storeEvent(1200, { status: 'rejected' });

    const text = await scrape();
    expect(valueIn(text, 'flowsmith_events_behind')).toBe(6);
    expect(valueIn(text, 'flowsmith_events_behind_oldest_seconds')).toBe(240);
    // The clock moves on: the same events, each a minute older.
    quiet.clock.advance(60_000);
    expect(valueIn(await scrape(), 'flowsmith_events_behind_oldest_seconds')).toBe(300);
    for (const name of ['flowsmith_events_behind', 'flowsmith_events_behind_oldest_seconds', 'flowsmith_db_size_bytes', 'flowsmith_db_table_bytes', 'flowsmith_db_table_live_rows', 'flowsmith_db_table_dead_rows']) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} \\S.+$`, 'm'));
      expect(text).toContain(`# TYPE ${name} gauge`);
    }
  });

  it('reads the unfinished events through their partial index, not the whole history', async () => {
    const plans: string[] = [];
    // The query as the metrics send it, asked for its plan instead of its rows.
    const explaining = {
      query: async (sql: string, values: unknown[]) => {
        const { rows } = await quiet.database.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
        plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
        return { rows: [] };
      },
    } as unknown as Parameters<typeof findEventsBehind>[0];
    // History much larger than what is unfinished, as retention keeps it.
    await quiet.database.pool.query(
      `INSERT INTO events (id, flow_id, user_id, flow_type, source, status, received_at, updated_at, finished_at)
       SELECT 'history-' || g, $1, $2, 'abandoned_cart', 'generic', 'delivered', $3::timestamptz - g * interval '1 second', $3, $3
         FROM generate_series(1, 5000) AS g`,
      [owner.flowId, owner.userId, ago(86_400)],
    );
    await quiet.database.pool.query('ANALYZE events');
    await findEventsBehind(explaining, quiet.clock.now());
    expect(plans[0]).toContain('events_unfinished');
    // The history is finished: nothing more is behind.
    expect(valueIn(await scrape(), 'flowsmith_events_behind')).toBe(6);
  });

  it("gives the database's size and its largest tables' size, live and dead rows, partitions under their table", async () => {
    const { pool } = quiet.database;
    const { rows } = await pool.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
    const text = await scrape();
    // Within a megabyte of what PostgreSQL says: both read the disk while the app writes.
    expect(Math.abs(valueIn(text, 'flowsmith_db_size_bytes')! - Number(rows[0]!.bytes))).toBeLessThan(1024 * 1024);
    const tables = [...text.matchAll(/^flowsmith_db_table_bytes\{table="([^"]+)"\} (\S+)$/gm)].map((match) => ({ table: match[1]!, bytes: Number(match[2]) }));
    expect(tables.length).toBe(10);
    expect(tables.map((table) => table.table)).toContain('public.events');
    expect(tables.every((table) => /^(public|pgboss)\.[a-z_]+$/.test(table.table) && table.bytes > 0)).toBe(true);
    // pg-boss's jobs are partitioned by queue: counted as one table, under its own name.
    expect(tables.map((table) => table.table)).toContain('pgboss.job');
    expect(tables.map((table) => table.table).filter((name) => name.startsWith('pgboss.job_'))).toEqual([]);

    // Deleted rows are dead until vacuum; the statistics reach the gauges when each
    // connection reports them (within a second or so of its transaction).
    await pool.query("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE id LIKE 'history-%' ORDER BY id LIMIT 100)");
    const stats = async () => {
      const { rows: stat } = await pool.query<{ live: string; dead: string }>(
        "SELECT n_live_tup AS live, n_dead_tup AS dead FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname = 'events'",
      );
      return { live: Number(stat[0]!.live), dead: Number(stat[0]!.dead) };
    };
    await expect.poll(async () => (await stats()).dead, { timeout: 20_000, interval: 500 }).toBeGreaterThanOrEqual(100);
    await expect
      .poll(
        async () => {
          const [metrics, expected] = [await scrape(), await stats()];
          return {
            live: valueIn(metrics, 'flowsmith_db_table_live_rows', { table: 'public.events' }),
            dead: valueIn(metrics, 'flowsmith_db_table_dead_rows', { table: 'public.events' }),
            expected,
          };
        },
        { timeout: 20_000, interval: 500 },
      )
      .toSatisfy(({ live, dead, expected }) => live === expected.live && dead === expected.dead && live >= 4900);
  });

  it('leaves a gauge unset when the database cannot be read, and still answers', async () => {
    const lost = await startTestApp({ env: { ROLE: 'web' } });
    try {
      await lost.database.pool.end();
      const response = await fetch(`${lost.baseUrl}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(valueIn(text, 'flowsmith_events_behind')).toBe(0);
      expect(text).not.toMatch(/^flowsmith_db_table_(bytes|live_rows|dead_rows)\{/m);
    } finally {
      await lost.close().catch(() => undefined);
    }
  });
});

describe('GET /readyz', () => {
  it('is ready when the database answers and every migration is applied, and not while one is pending', async () => {
    const ready = await fetch(`${baseUrl()}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', database: 'reachable', migrations: 'done' });
    const { pool } = scenario.testApp.database;
    const { rows } = await pool.query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM schema_migrations ORDER BY name DESC LIMIT 1');
    await pool.query('DELETE FROM schema_migrations WHERE name = $1', [rows[0]!.name]);
    try {
      const pending = await fetch(`${baseUrl()}/readyz`);
      expect(pending.status).toBe(503);
      expect(pending.headers.get('retry-after')).toBe('5');
      expect(await pending.json()).toEqual({ status: 'unavailable', database: 'reachable', migrations: 'pending' });
    } finally {
      await pool.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [rows[0]!.name, rows[0]!.applied_at]);
    }
    expect((await fetch(`${baseUrl()}/readyz`)).status).toBe(200);
  });

  it('answers 503 quickly once the database is gone, while /healthz still says the process lives', async () => {
    const lost = await startTestApp();
    try {
      // The app's own pool ends: every query fails from now on, as with a database that is gone.
      await lost.database.pool.end();
      const started = Date.now();
      const answer = await fetch(`${lost.baseUrl}/readyz`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await fetch(`${lost.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await lost.close().catch(() => undefined);
    }
  });
});

describe('overload', () => {
  it('answers 503 with Retry-After while the event loop is blocked, serves the operators\' routes, and recovers', async () => {
    // A real port: the requests must wait on the socket while the event loop is blocked (inject sheds none).
    const busy = await startTestApp({ listen: true, overload: { maxEventLoopDelayMs: 20, sampleIntervalMs: 250 } });
    try {
      // Block the app's event loop (it runs in this process) far longer than its limit. The
      // sample right after averages the block with at most 25 ordinary 10 ms ticks, so it
      // reads above 20 ms however the block falls in the sampling window; a machine busy
      // enough to delay the request past the next sample gets another try.
      let shed: Response | undefined;
      let operators: Response | undefined;
      for (let attempt = 0; attempt < 5 && shed?.status !== 503; attempt += 1) {
        const until = Date.now() + 800;
        while (Date.now() < until) {
          // busy on purpose
        }
        [shed, operators] = await Promise.all([fetch(`${busy.baseUrl}${endpointAddress(endpoints.account.session)}`), fetch(`${busy.baseUrl}/healthz`)]);
      }
      if (!shed || !operators) throw new Error('no answer');
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('5');
      expect(await shed.json()).toMatchObject({ error: 'overloaded', message: requestMessages.overloaded });
      expect(operators.status).toBe(200);
      await expect.poll(async () => (await fetch(`${busy.baseUrl}${endpointAddress(endpoints.account.session)}`)).status, { timeout: 10_000, interval: 100 }).not.toBe(503);
    } finally {
      await busy.close();
    }
  });
});

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3 document of the public and owner API, from the route schemas', async () => {
    const response = await fetch(`${baseUrl()}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; info: { title: string }; paths: Record<string, Record<string, { responses?: Record<string, unknown>; parameters?: unknown[] }>> };
    expect(document.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(document.info.title).toBe('Flowsmith');
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/webhooks/{flowType}/{flowId}', '/api/pixel/{pixelKey}', '/api/flows/', '/api/flows/{flowType}', '/api/events/', '/api/credentials/']));
    // Only the API: no pages, no operators' routes, no document of itself.
    expect(paths.filter((path) => !path.startsWith('/api/'))).toEqual([]);
    expect(paths).not.toContain('/api/openapi.json');
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(Object.keys(operation.responses ?? {}).length, `${method.toUpperCase()} ${path} has no responses`).toBeGreaterThan(0);
      }
    }
    const webhook = document.paths['/api/webhooks/{flowType}/{flowId}']!.post!;
    expect(webhook.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'flowType', in: 'path' }), expect.objectContaining({ name: 'flowId', in: 'path' })]));
    expect(Object.keys(webhook.responses!)).toContain('202');
  });
});
