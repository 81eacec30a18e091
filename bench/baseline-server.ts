import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

/**
 * The least a webhook receiver can do, as the yardstick for `bench:ingest`: read the body,
 * verify the Shopify HMAC, insert the raw body, answer 202. Same database, same pool size
 * as Flowsmith's web role.
 */
const port = Number(process.env.PORT);
const secret = process.env.SIGNING_SECRET ?? '';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
await pool.query('CREATE TABLE IF NOT EXISTS baseline_events (id bigserial PRIMARY KEY, body text NOT NULL, received_at timestamptz NOT NULL DEFAULT now())');

const server = createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200).end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const expected = createHmac('sha256', secret).update(body).digest();
    const received = Buffer.from(String(request.headers['x-shopify-hmac-sha256'] ?? ''), 'base64');
    if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
      response.writeHead(401).end();
      return;
    }
    pool.query('INSERT INTO baseline_events (body) VALUES ($1) RETURNING id', [body.toString('utf8')]).then(
      ({ rows }) => response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ eventId: String(rows[0].id) })),
      () => response.writeHead(503).end(),
    );
  });
});
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
