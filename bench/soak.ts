/**
 * `npm run bench:soak`: a steady load for a long time, to see how Flowsmith ages.
 *
 * The real server (src/server/main.ts, ROLE=all, as `npm start` runs it) gets generic
 * `checkout_abandoned` events of distinct shoppers at a steady rate, open loop (one every
 * 1/rate s, whatever the answers do), for an abandoned-checkout flow with two assistants,
 * its daily cap raised. OpenAI (stand-in) answers in 300 ms; Klaviyo (stand-in) enforces
 * its account limits, so a backlog goes in bulk import jobs as it would for real.
 *
 * Each minute it prints the acknowledgements' p50/p99 and refusals, arrivals and
 * deliveries, the backlog (events due and not finished) and its oldest age, the server's
 * resident memory, the data size, and the largest tables with their dead rows, read from
 * the server's own /metrics as an operator would. At the end: the drift of each figure (the
 * last 5 minutes against the first 5), the bytes stored per event, and whether every
 * accepted event was finished once the load stopped.
 *
 * SOAK_MINUTES (30) of load per database; SOAK_DATABASES (embedded,server) which ones, one
 * after the other; SOAK_EMBEDDED_RATE (40) and SOAK_SERVER_RATE (150) events a second;
 * SOAK_DRAIN_MINUTES (5) to wait for the backlog after the load. Targets (issue 26):
 * p99 of the last 5 minutes ≤ 200 ms (embedded) and ≤ 1.5 × the first 5 minutes'; backlog
 * at the end under one minute of arrivals; memory within 10 % of its level after the first
 * 5 minutes; at most 8 KB of disk per event (embedded). Figures are printed, not asserted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/server/database/database.ts';
import { storedFunctions } from '../src/server/stored-functions.ts';
import { startFakeOpenAI } from '../test/fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../test/fakes/fake-klaviyo.ts';
import { benchKeys, createBenchDatabase, formatNumber, freePort, seedOwnerWithFlow, startProcess } from './bench-support.ts';

const minutes = Math.max(1, Number(process.env.SOAK_MINUTES ?? 30));
const databases = (process.env.SOAK_DATABASES ?? 'embedded,server').split(',').map((name) => name.trim()) as Array<'embedded' | 'server'>;
const rates = { embedded: Number(process.env.SOAK_EMBEDDED_RATE ?? 40), server: Number(process.env.SOAK_SERVER_RATE ?? 150) };
const drainMinutes = Number(process.env.SOAK_DRAIN_MINUTES ?? 5);
/** The first and last minutes compared for drift. */
const window = Math.max(1, Math.min(5, Math.floor(minutes / 2)));
/** Requests in flight at most; beyond, the generator counts a send as not made (the server is not answering). */
const maxInFlight = 5_000;

const assistants = [
  { name: 'Subject Line', klaviyo_property: 'checkout_subject', prompt_template: 'Write a subject line about {products} for {first_name}', model: null, instructions: null, fallback_text: null, max_length: null },
  { name: 'Body', klaviyo_property: 'checkout_body', prompt_template: 'Write an email about {products}, total {total} {currency}', model: null, instructions: null, fallback_text: null, max_length: null },
];

function checkoutEvent(email: string): string {
  return JSON.stringify({
    event_id: `evt_${randomUUID()}`,
    event_type: 'checkout_abandoned',
    timestamp: new Date().toISOString(),
    properties: {
      customer: { email, first_name: 'Soak', last_name: 'Shopper' },
      checkout_id: randomUUID(),
      products: [
        { id: 'p1', name: 'Trail Shoe', price: 89.5, quantity: 1, description: 'A light trail running shoe' },
        { id: 'p2', name: 'Wool Socks', price: 12, quantity: 2, description: 'Merino socks' },
      ],
      total: 113.5,
      currency: 'USD',
      checkout_url: 'https://shop.example/checkouts/abc',
    },
  });
}

/** One minute of load as the generator saw it. */
interface MinuteLoad {
  sent: number;
  accepted: number;
  refused: number;
  failed: number;
  skipped: number;
  latencies: number[];
}

const newMinute = (): MinuteLoad => ({ sent: 0, accepted: 0, refused: 0, failed: 0, skipped: 0, latencies: [] });

function percentile(values: number[], share: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

/** Sends at `rate` a second for `seconds`, one request every 1/rate s, into per-minute buckets. */
async function steadyLoad(url: string, rate: number, seconds: number, buckets: MinuteLoad[], onMinute: (minute: number) => Promise<void>): Promise<void> {
  const started = performance.now();
  let sent = 0;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  let minuteDone = 0;
  const total = Math.round(rate * seconds);
  while (sent < total) {
    const elapsed = (performance.now() - started) / 1000;
    const minute = Math.floor(elapsed / 60);
    if (minute > minuteDone) {
      // Sampling runs beside the load, never holding it up.
      const finished = minuteDone;
      minuteDone = minute;
      void onMinute(finished);
    }
    const due = Math.min(total, Math.floor(elapsed * rate) + 1);
    for (; sent < due; sent++) {
      const bucket = (buckets[minute] ??= newMinute());
      bucket.sent += 1;
      if (inFlight >= maxInFlight) {
        bucket.skipped += 1;
        continue;
      }
      inFlight += 1;
      const sentAt = performance.now();
      const request = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: checkoutEvent(`soak-${sent}-${randomBytes(4).toString('hex')}@shop.example`) })
        .then(async (response) => {
          await response.arrayBuffer();
          bucket.latencies.push(performance.now() - sentAt);
          if (response.status === 202) bucket.accepted += 1;
          else bucket.refused += 1;
        })
        .catch(() => {
          bucket.failed += 1;
        })
        .finally(() => {
          inFlight -= 1;
          pending.delete(request);
        });
      pending.add(request);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(pending);
  await onMinute(minuteDone);
}

/** Prometheus text: value of `name` (with optional exact labels), summed over series. */
function metric(text: string, name: string, labels?: string): number | null {
  let found: number | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith(' ') || rest.startsWith('{'))) continue;
    if (labels && !rest.startsWith(`{${labels}}`)) continue;
    const value = Number(rest.slice(rest.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) found = (found ?? 0) + value;
  }
  return found;
}

/** Series of `name` by the value of label `label`. */
function metricByLabel(text: string, name: string, label: string): Map<string, number> {
  const values = new Map<string, number>();
  const pattern = new RegExp(`^${name}\\{(?:.*,)?${label}="([^"]+)"[^}]*\\} (\\S+)$`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (match) values.set(match[1]!, Number(match[2]));
  }
  return values;
}

async function directorySize(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    try {
      total += (await stat(path.join(entry.parentPath, entry.name))).blocks * 512;
    } catch {
      // removed meanwhile (a finished WAL segment)
    }
  }
  return total;
}

async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

interface Sample {
  minute: number;
  p50: number;
  p99: number;
  sent: number;
  accepted: number;
  refused: number;
  failed: number;
  arrivals: number;
  deliveries: number;
  backlog: number | null;
  oldestSeconds: number | null;
  rssBytes: number;
  dataBytes: number;
  tables: string;
  /** The embedded database's upkeep this minute: statements, their seconds, and those over 0.25 s. */
  upkeep: { statements: number; seconds: number; over250ms: number };
}

const mb = (bytes: number) => formatNumber(bytes / 1024 / 1024, 0);

async function soak(kind: 'embedded' | 'server'): Promise<void> {
  const rate = rates[kind];
  const openai = await startFakeOpenAI({ validKeys: [benchKeys.openai], latencyMs: 300 });
  const klaviyo = await startFakeKlaviyo({ validKeys: [benchKeys.klaviyo], enforceRateLimits: true });
  const dataDir = path.resolve(`.tmp/soak-${kind}-${randomUUID().slice(0, 8)}`);
  const serverDatabase = kind === 'server' ? await createBenchDatabase() : null;
  const seeded = await openDatabase({ databaseUrl: serverDatabase?.url, dataDir: serverDatabase ? null : dataDir, storedFunctions });
  const { flowId } = await seedOwnerWithFlow(seeded.pool, { flowType: 'abandoned_checkout', assistants });
  await seeded.pool.query('UPDATE flows SET daily_generation_cap = 1000000 WHERE id = $1', [flowId]);
  await seeded.close();
  const sizePool = serverDatabase ? new pg.Pool({ connectionString: serverDatabase.url, max: 1 }) : null;
  const dataSize = async () =>
    sizePool ? Number((await sizePool.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size) : directorySize(dataDir);
  const port = await freePort();
  const app = await startProcess(
    '../src/server/main.ts',
    {
      PORT: String(port),
      ...(serverDatabase ? { DATABASE_URL: serverDatabase.url } : {}),
      DATA_DIR: dataDir,
      CREDENTIALS_KEY: benchKeys.credentialsKey,
      LOG_LEVEL: 'warn',
      OPENAI_BASE_URL: openai.apiBaseUrl,
      KLAVIYO_BASE_URL: klaviyo.baseUrl,
    },
    `http://127.0.0.1:${port}/healthz`,
  );
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const readMetrics = async () => {
    try {
      return await (await fetch(metricsUrl, { signal: AbortSignal.timeout(20_000) })).text();
    } catch {
      return '';
    }
  };
  const startBytes = await dataSize();
  const buckets: MinuteLoad[] = [];
  const samples: Sample[] = [];
  let previous = { accepted: 0, finished: 0, upkeepCount: 0, upkeepSum: 0, upkeepQuick: 0 };
  console.log(`\n${kind === 'embedded' ? 'Embedded PostgreSQL (npm start as shipped)' : 'Server PostgreSQL'}: ${rate} events/s for ${minutes} min, ROLE=all, OpenAI answering in 300 ms, Klaviyo's limits enforced`);
  console.log('  min   p50 ms   p99 ms  sent  2xx  non-2xx/err  arrived delivered  backlog oldest s   rss MB  data MB');
  const sampleMinute = async (minute: number) => {
    // Keep the stand-ins from holding every request for an hour.
    openai.requests.splice(0);
    klaviyo.requests.splice(0);
    klaviyo.profiles.clear();
    const text = await readMetrics();
    const accepted = metric(text, 'flowsmith_events_accepted_total') ?? previous.accepted;
    const finished = metric(text, 'flowsmith_events_finished_total') ?? previous.finished;
    const bucket = buckets[minute] ?? newMinute();
    const upkeepCount = metric(text, 'flowsmith_db_upkeep_duration_seconds_count') ?? previous.upkeepCount;
    const upkeepSum = metric(text, 'flowsmith_db_upkeep_duration_seconds_sum') ?? previous.upkeepSum;
    const upkeepQuick = [...text.matchAll(/^flowsmith_db_upkeep_duration_seconds_bucket\{le="0\.25",[^}]*\} (\S+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    const behind = metric(text, 'flowsmith_events_behind');
    const sizes = metricByLabel(text, 'flowsmith_db_table_bytes', 'table');
    const dead = metricByLabel(text, 'flowsmith_db_table_dead_rows', 'table');
    const tables = [...sizes.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([table, bytes]) => `${table} ${mb(bytes)} MB (${formatNumber(dead.get(table) ?? 0)} dead)`)
      .join(', ');
    const sample: Sample = {
      minute: minute + 1,
      p50: percentile(bucket.latencies, 0.5),
      p99: percentile(bucket.latencies, 0.99),
      sent: bucket.sent,
      accepted: bucket.accepted,
      refused: bucket.refused,
      failed: bucket.failed + bucket.skipped,
      arrivals: accepted - previous.accepted,
      deliveries: finished - previous.finished,
      backlog: behind ?? accepted - finished,
      oldestSeconds: metric(text, 'flowsmith_events_behind_oldest_seconds') ?? metric(text, 'flowsmith_queue_oldest_due_seconds'),
      rssBytes: await residentBytes(app.child.pid!),
      dataBytes: await dataSize(),
      tables,
      upkeep: { statements: upkeepCount - previous.upkeepCount, seconds: upkeepSum - previous.upkeepSum, over250ms: upkeepCount - upkeepQuick - (previous.upkeepCount - previous.upkeepQuick) },
    };
    previous = { accepted, finished, upkeepCount, upkeepSum, upkeepQuick };
    samples.push(sample);
    console.log(
      `  ${String(sample.minute).padStart(3)} ${formatNumber(sample.p50, 0).padStart(8)} ${formatNumber(sample.p99, 0).padStart(8)} ${formatNumber(sample.sent).padStart(5)} ${formatNumber(sample.accepted).padStart(4)} ${formatNumber(sample.refused + sample.failed).padStart(12)} ${formatNumber(sample.arrivals).padStart(8)} ${formatNumber(sample.deliveries).padStart(9)} ${formatNumber(sample.backlog ?? NaN).padStart(8)} ${formatNumber(sample.oldestSeconds ?? NaN, 0).padStart(8)} ${mb(sample.rssBytes).padStart(8)} ${mb(sample.dataBytes).padStart(8)}`,
    );
    if (sample.upkeep.statements > 0) {
      console.log(`        upkeep: ${sample.upkeep.statements} statements, ${formatNumber(sample.upkeep.seconds, 2)} s in all, ${sample.upkeep.over250ms} over 0.25 s`);
    }
    if (tables && (minute % 5 === 4 || minute === minutes - 1)) console.log(`        largest tables: ${tables}`);
  };
  try {
    await steadyLoad(`http://127.0.0.1:${port}/api/webhooks/abandoned_checkout/${flowId}`, rate, minutes * 60, buckets, sampleMinute);
    const loadSamples = samples.slice(0, minutes);
    const first = loadSamples.slice(0, window);
    const last = loadSamples.slice(-window);
    const pooled = (from: number, to: number) => buckets.slice(from, to).flatMap((bucket) => bucket.latencies);
    const firstP99 = percentile(pooled(0, window), 0.99);
    const lastP99 = percentile(pooled(minutes - window, minutes), 0.99);
    const firstP50 = percentile(pooled(0, window), 0.5);
    const lastP50 = percentile(pooled(minutes - window, minutes), 0.5);
    const sum = (rows: Sample[], key: 'deliveries' | 'arrivals' | 'refused' | 'failed') => rows.reduce((total, row) => total + row[key], 0);
    const rssAfterFirst = first.at(-1)!.rssBytes;
    const rssEnd = last.at(-1)!.rssBytes;
    const backlogEnd = last.at(-1)!.backlog ?? NaN;
    const arrivalsPerMinute = sum(last, 'arrivals') / last.length;

    // Let the backlog drain, then count what the load left on disk.
    const drainStarted = Date.now();
    let drained = false;
    while (Date.now() - drainStarted < drainMinutes * 60_000) {
      const text = await readMetrics();
      const accepted = metric(text, 'flowsmith_events_accepted_total') ?? 0;
      const finished = metric(text, 'flowsmith_events_finished_total') ?? 0;
      if (accepted > 0 && finished >= accepted) {
        drained = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const drainSeconds = (Date.now() - drainStarted) / 1000;
    const finalText = await readMetrics();
    const accepted = metric(finalText, 'flowsmith_events_accepted_total') ?? 0;
    const finishedByStatus = metricByLabel(finalText, 'flowsmith_events_finished_total', 'status');
    const endBytes = await dataSize();
    const perEvent = (endBytes - startBytes) / Math.max(1, accepted);
    const walBytes = serverDatabase ? null : await directorySize(path.join(dataDir, 'pgdata', 'pg_wal')).catch(() => null);
    const databaseBytes = metric(finalText, 'flowsmith_db_size_bytes');
    const upkeep = samples.reduce((sum, sample) => ({ statements: sum.statements + sample.upkeep.statements, seconds: sum.seconds + sample.upkeep.seconds, over: sum.over + sample.upkeep.over250ms }), { statements: 0, seconds: 0, over: 0 });
    const ratio = (a: number, b: number) => `${formatNumber(a / b, 2)}×`;
    const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
    const memoryDrift = (rssEnd - rssAfterFirst) / rssAfterFirst;

    console.log(`\n  Drift, last ${window} min against the first ${window}:`);
    console.log(`    ack p50   ${formatNumber(firstP50, 1)} → ${formatNumber(lastP50, 1)} ms (${ratio(lastP50, firstP50)})`);
    console.log(`    ack p99   ${formatNumber(firstP99, 1)} → ${formatNumber(lastP99, 1)} ms (${ratio(lastP99, firstP99)})`);
    console.log(`    refused   ${formatNumber(sum(first, 'refused') + sum(first, 'failed'))} → ${formatNumber(sum(last, 'refused') + sum(last, 'failed'))}`);
    console.log(`    delivered ${formatNumber(sum(first, 'deliveries') / first.length)} → ${formatNumber(sum(last, 'deliveries') / last.length)} a minute (arrivals ${formatNumber(sum(first, 'arrivals') / first.length)} → ${formatNumber(arrivalsPerMinute)})`);
    console.log(`    memory    ${mb(rssAfterFirst)} → ${mb(rssEnd)} MB (${formatNumber(memoryDrift * 100, 1)} %)`);
    console.log(`  Backlog at the end of the load: ${formatNumber(backlogEnd)} events (${formatNumber(backlogEnd / Math.max(1, arrivalsPerMinute), 2)} min of arrivals)`);
    console.log(
      `  After the load: ${drained ? `every accepted event finished within ${formatNumber(drainSeconds, 0)} s` : `NOT drained in ${drainMinutes} min`}; accepted ${formatNumber(accepted)}, finished ${[...finishedByStatus].map(([status, count]) => `${status} ${formatNumber(count)}`).join(', ')}`,
    );
    console.log(`  Disk: ${mb(startBytes)} → ${mb(endBytes)} MB, ${formatNumber(perEvent / 1024, 2)} KB per accepted event`);
    if (walBytes !== null) console.log(`    of which write-ahead log ${mb(walBytes)} MB (what was written since the last checkpoint; older log is deleted, so it stays about this size)`);
    if (databaseBytes !== null) console.log(`    database (tables, indexes, catalogue) ${mb(databaseBytes)} MB at the end`);
    if (upkeep.statements > 0) console.log(`  Upkeep: ${formatNumber(upkeep.statements)} statements, ${formatNumber(upkeep.seconds, 1)} s in all, ${upkeep.over} over 0.25 s`);
    const targets = [
      kind === 'embedded' ? `p99 last ${window} min ≤ 200 ms ${verdict(lastP99 <= 200)}` : null,
      `p99 ≤ 1.5× first ${verdict(lastP99 <= 1.5 * firstP99)}`,
      `backlog < 1 min of arrivals ${verdict(backlogEnd < arrivalsPerMinute)}`,
      `memory within 10 % ${verdict(Math.abs(memoryDrift) <= 0.1)}`,
      kind === 'embedded' ? `≤ 8 KB/event ${verdict(perEvent <= 8 * 1024)}` : null,
    ].filter(Boolean);
    console.log(`  Targets: ${targets.join('; ')}`);
  } finally {
    await app.stop();
    await sizePool?.end();
    await serverDatabase?.drop();
    await rm(dataDir, { recursive: true, force: true });
    // A request outside the vendors' definitions fails the run, after the other database's
    // soak has had its turn (an hour's figures are not thrown away for it).
    for (const standIn of [openai, klaviyo]) {
      await standIn.close().catch((error: unknown) => {
        console.error(`  The stand-ins saw requests outside the vendors' definitions: ${(error as Error).message}`);
        process.exitCode = 1;
      });
    }
  }
}

console.log(`bench:soak: ${minutes} min per database (${databases.join(', ')}), drift over ${window} min windows`);
for (const kind of databases) await soak(kind);
